package ggml

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tokenbytoken/course/engine/internal/f16"
)

// randomHalves returns n f16 numbers of about size scale.
func randomHalves(rng *rand.Rand, n int, scale float64) []uint16 {
	h := make([]uint16, n)
	for i := range h {
		h[i] = f16.FromFloat32(float32(rng.NormFloat64() * scale))
	}
	return h
}

// TestAttentionKernelsMatchGo runs Attend and AttendTiled with the
// kernels and with the Go loops, for heads of 64 and 128 numbers, from 1
// position to more than four tiles, with a query large enough that the
// running maximum moves often: the outputs must be the same, bit for bit.
func TestAttentionKernelsMatchGo(t *testing.T) {
	if !hasAVX2 {
		t.Skip("this CPU has no AVX2")
	}
	defer func(u bool) { useAVX2 = u }(useAVX2)
	rng := rand.New(rand.NewPCG(31, 32))
	for _, hs := range []int{64, 128} {
		stride := 3 * hs // a key/value head among three
		const positions = 300
		keys := randomHalves(rng, positions*stride, 1)
		values := randomHalves(rng, positions*stride, 0.5)
		q := make([]float32, 80*hs)
		for i := range q {
			q[i] = float32(rng.NormFloat64() * 2)
		}
		var s Scratch
		for _, n := range []int{1, 2, 7, 64, 65, 200, positions} {
			var got [2][]float32
			for i, avx2 := range []bool{false, true} {
				useAVX2 = avx2
				got[i] = make([]float32, hs)
				Attend(got[i], q[:hs], keys[hs:], values[hs:], stride, n, 0.125, &s)
			}
			for d := range hs {
				if !same(got[0][d], got[1][d]) {
					t.Fatalf("Attend, head of %d, %d positions, output %d: Go %g, kernels %g", hs, n, d, got[0][d], got[1][d])
				}
			}
		}
		for _, c := range []struct{ first, rows int }{{0, 64}, {10, 70}, {150, 80}, {positions - 64, 64}} {
			var got [2][]float32
			for i, avx2 := range []bool{false, true} {
				useAVX2 = avx2
				got[i] = make([]float32, c.rows*2*hs)
				AttendTiled(got[i], 2*hs, q, hs, hs, c.rows, c.first, keys, values, stride, 0.125, &s)
			}
			for k := range got[0] {
				if k%(2*hs) < hs && !same(got[0][k], got[1][k]) {
					t.Fatalf("AttendTiled, head of %d, rows from %d: output %d of row %d: Go %g, kernels %g", hs, c.first, k%(2*hs), k/(2*hs), got[0][k], got[1][k])
				}
			}
		}
	}
}

// TestExpKernel compares expf4 with Exp on numbers over Exp's range and
// beyond, and on its edges.
func TestExpKernel(t *testing.T) {
	if !hasAVX2 {
		t.Skip("this CPU has no AVX2")
	}
	rng := rand.New(rand.NewPCG(33, 34))
	var x []float32
	for range 20000 {
		x = append(x, float32(rng.Float64()*220-120))
	}
	x = append(x, 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		88, 88.72283, 88.72284, -103.97207, -103.97208, -87.33655, 1e-30, -1e-30)
	for len(x)%4 != 0 {
		x = append(x, 1)
	}
	got := append([]float32(nil), x...)
	expf4(len(got)/4, &got[0], &exp2Table[0])
	for i, v := range x {
		if want := Exp(v); !same(got[i], want) {
			t.Fatalf("expf4(%g) = %g; Exp %g", v, got[i], want)
		}
	}
}

// TestRotateKernel compares rotate8 with the Go loop on heads of numbers
// of every size and angles of every quadrant.
func TestRotateKernel(t *testing.T) {
	if !hasAVX2 {
		t.Skip("this CPU has no AVX2")
	}
	defer func(u bool) { useAVX2 = u }(useAVX2)
	rng := rand.New(rand.NewPCG(35, 36))
	const hs = 64
	cs := make([]float32, hs)
	for i := 0; i < hs; i += 2 {
		cs[i+1], cs[i] = SinCos(float32(rng.Float64()*400 - 200))
	}
	x := make([]float32, 9*hs)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * float64(int(1)<<rng.IntN(12)) / 64)
	}
	var got [2][]float32
	for i, avx2 := range []bool{false, true} {
		useAVX2 = avx2
		got[i] = append([]float32(nil), x...)
		Rotate(got[i], cs)
	}
	for k := range x {
		if !same(got[0][k], got[1][k]) {
			t.Fatalf("number %d (%g): Go %g, kernel %g", k, x[k], got[0][k], got[1][k])
		}
	}
}

// paged cuts keys and values of positions positions at stride into pages
// of size positions, each page a slice of its own, as a paged cache
// keeps them.
func paged(keys, values []uint16, stride, positions, size, offset int) Pages {
	p := Pages{Size: size, Stride: stride, Offset: offset}
	for first := 0; first < positions; first += size {
		end := min(first+size, positions)
		p.Keys = append(p.Keys, append([]uint16(nil), keys[first*stride:end*stride]...))
		p.Values = append(p.Values, append([]uint16(nil), values[first*stride:end*stride]...))
	}
	return p
}

// TestPagesAreOnePiece runs Attend and AttendTiled over keys and values in
// one piece and cut into pages of several sizes, with the kernels and
// with the Go loops: the outputs must be the same, bit for bit.
func TestPagesAreOnePiece(t *testing.T) {
	defer func(u bool) { useAVX2 = u }(useAVX2)
	rng := rand.New(rand.NewPCG(35, 36))
	const hs, heads, positions = 64, 3, 200
	stride := heads * hs
	keys := randomHalves(rng, positions*stride, 1)
	values := randomHalves(rng, positions*stride, 0.5)
	q := make([]float32, 80*hs)
	for i := range q {
		q[i] = float32(rng.NormFloat64() * 2)
	}
	var s Scratch
	for _, avx2 := range []bool{false, true} {
		if avx2 && !hasAVX2 {
			continue
		}
		useAVX2 = avx2
		for _, size := range []int{1, 5, 16, 64, 128} {
			kv := paged(keys, values, stride, positions, size, hs)
			for _, n := range []int{1, 2, 16, 17, 65, positions} {
				want, got := make([]float32, hs), make([]float32, hs)
				Attend(want, q[:hs], keys[hs:], values[hs:], stride, n, 0.125, &s)
				AttendPages(got, q[:hs], &kv, n, 0.125, &s)
				for d := range hs {
					if !same(want[d], got[d]) {
						t.Fatalf("kernels %v: Attend over %d positions in pages of %d, output %d: %g, in one piece %g", avx2, n, size, d, got[d], want[d])
					}
				}
			}
			for _, c := range []struct{ first, rows int }{{0, 64}, {10, 70}, {positions - 64, 64}} {
				want, got := make([]float32, c.rows*hs), make([]float32, c.rows*hs)
				AttendTiled(want, hs, q, hs, hs, c.rows, c.first, keys[hs:], values[hs:], stride, 0.125, &s)
				AttendTiledPages(got, hs, q, hs, hs, c.rows, c.first, &kv, 0.125, &s)
				for k := range want {
					if !same(want[k], got[k]) {
						t.Fatalf("kernels %v: AttendTiled of rows from %d in pages of %d, output %d of row %d: %g, in one piece %g", avx2, c.first, size, k%hs, k/hs, got[k], want[k])
					}
				}
			}
		}
	}
}

// TestPagesRefuseBadShapes checks that pages too short for the positions
// asked are refused before any kernel reads them.
func TestPagesRefuseBadShapes(t *testing.T) {
	const hs = 64
	keys, values := make([]uint16, 10*hs), make([]uint16, 10*hs)
	kv := paged(keys, values, hs, 10, 4, 0)
	var s Scratch
	for _, c := range []struct {
		name string
		kv   Pages
		n    int
	}{
		{"more positions than pages", kv, 13},
		{"a short last page", Pages{Keys: kv.Keys[:3], Values: kv.Values[:3], Size: 4, Stride: hs}, 12},
		{"no page size", Pages{Keys: kv.Keys, Values: kv.Values, Stride: hs}, 4},
		{"an offset past the stride", Pages{Keys: kv.Keys, Values: kv.Values, Size: 4, Stride: hs, Offset: 1}, 4},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: AttendPages over %d positions did not panic", c.name, c.n)
				}
			}()
			AttendPages(make([]float32, hs), make([]float32, hs), &c.kv, c.n, 1, &s)
		}()
	}
}

// TestAttendHeadsIsAttendPages runs AttendHeadsPages for 1 to 4 query
// heads of 64 and 128 numbers over keys and values in pages of several
// sizes, with and without the AVX-512 kernels, from 1 position to 300,
// with queries large enough that the running maximum moves often: each
// head's output must be AttendPages', bit for bit.
func TestAttendHeadsIsAttendPages(t *testing.T) {
	defer func(u bool) { useAVX512 = u }(useAVX512)
	rng := rand.New(rand.NewPCG(37, 38))
	const positions = 300
	var s Scratch
	for _, hs := range []int{64, 128} {
		stride := 2 * hs // the second of two key/value heads
		keys := randomHalves(rng, positions*stride, 1)
		values := randomHalves(rng, positions*stride, 0.5)
		q := make([]float32, 4*hs)
		for i := range q {
			q[i] = float32(rng.NormFloat64() * 3)
		}
		for _, wide := range []bool{false, true} {
			if wide && !hasAVX512 {
				continue
			}
			useAVX512 = wide
			for _, size := range []int{1, 16, 64, positions} {
				kv := paged(keys, values, stride, positions, size, hs)
				for _, n := range []int{1, 2, 17, 64, 65, 200, positions} {
					for heads := 1; heads <= 4; heads++ {
						got := make([]float32, heads*hs)
						AttendHeadsPages(got, q[:heads*hs], heads, &kv, n, 0.125, &s)
						for h := range heads {
							want := make([]float32, hs)
							AttendPages(want, q[h*hs:(h+1)*hs], &kv, n, 0.125, &s)
							for d := range hs {
								if !same(want[d], got[h*hs+d]) {
									t.Fatalf("AVX-512 %v, %d heads of %d over %d positions in pages of %d: head %d output %d is %g; AttendPages %g",
										wide, heads, hs, n, size, h, d, got[h*hs+d], want[d])
								}
							}
						}
					}
				}
			}
		}
	}
}
