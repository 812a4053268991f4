package ggml

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// The files in testdata are outputs of llama.cpp's CPU backend (the
// build and commit of ../../testdata/llamacpp/README.md, for x86-64 with
// AVX-512), recorded by a small C program linked with it from inputs it
// drew at random, with edge values written over some:
//
//	swiglu.bin     uint32 n; n float32 x, n float32 g; n float32
//	               ggml_vec_swiglu_f32(x, g)
//	softmax.bin    uint32 t; t×64 float32 scores x; t float32 maxima m;
//	               t×64 float32 y and t float64 sums, from
//	               ggml_vec_soft_max_f32(64, y, x, m)
//	dotf16.bin     uint32 p; p×128 f16 a, p×128 f16 b; p float32
//	               ggml_vec_dot_f16 of their first 64, p of all 128
//	attention.bin  uint32 cases; f16 keys and values of 1 head, 256
//	               positions of 64; then per case uint32 first, uint32
//	               n, the float32 queries of 2 heads (head, row, 64) and
//	               ggml_flash_attn_ext's output (row, head, 64), scale
//	               1/8, row r seeing positions 0..first+r (1 thread)
//
// all little-endian.

// reader reads a fixture's numbers in order.
type reader struct {
	t    *testing.T
	data []byte
}

func open(t *testing.T, name string) *reader {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return &reader{t, data}
}

func (r *reader) next(n int) []byte {
	if len(r.data) < n {
		r.t.Fatalf("fixture ends early: %d bytes wanted, %d left", n, len(r.data))
	}
	b := r.data[:n]
	r.data = r.data[n:]
	return b
}

func (r *reader) u32() int { return int(binary.LittleEndian.Uint32(r.next(4))) }

func (r *reader) f32s(n int) []float32 {
	b := r.next(4 * n)
	x := make([]float32, n)
	for i := range x {
		x[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return x
}

func (r *reader) f64s(n int) []float64 {
	b := r.next(8 * n)
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return x
}

func (r *reader) halves(n int) []uint16 {
	b := r.next(2 * n)
	x := make([]uint16, n)
	for i := range x {
		x[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return x
}

func (r *reader) end() {
	if len(r.data) != 0 {
		r.t.Fatalf("fixture has %d bytes more than expected", len(r.data))
	}
}

// same reports whether a and b are the same float32, NaNs all alike.
func same(a, b float32) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return math.Float32bits(a) == math.Float32bits(b)
}

// paths runs f with the Go loops, then with the kernels where the CPU
// has them.
func paths(t *testing.T, f func(t *testing.T)) {
	defer func(u bool) { useAVX2 = u }(useAVX2)
	for _, avx2 := range []bool{false, true} {
		if avx2 && !hasAVX2 {
			continue
		}
		useAVX2 = avx2
		name := "go"
		if avx2 {
			name = "avx2"
		}
		t.Run(name, f)
	}
}

func TestSwiGLUMatchesLlamaCpp(t *testing.T) {
	r := open(t, "swiglu.bin")
	n := r.u32()
	x, g, want := r.f32s(n), r.f32s(n), r.f32s(n)
	r.end()
	paths(t, func(t *testing.T) {
		got := append([]float32(nil), x...)
		SwiGLU(got, g)
		for i := range got {
			if !same(got[i], want[i]) {
				t.Fatalf("SwiGLU(%g, %g) = %g; llama.cpp %g", x[i], g[i], got[i], want[i])
			}
		}
	})
}

func TestVExpMatchesLlamaCpp(t *testing.T) {
	r := open(t, "softmax.bin")
	n := r.u32()
	x, m, y, sums := r.f32s(64*n), r.f32s(n), r.f32s(64*n), r.f64s(n)
	r.end()
	paths(t, func(t *testing.T) {
		for k := range n {
			tile := make([]float32, 64)
			for i := range tile {
				tile[i] = x[64*k+i] - m[k]
			}
			got := make([]float32, 64)
			copy(got, tile)
			sum := expTile(got)
			for i := range got {
				if !same(got[i], y[64*k+i]) || !same(VExp(tile[i]), y[64*k+i]) {
					t.Fatalf("VExp(%g) = %g (%g in a tile); llama.cpp %g", tile[i], VExp(tile[i]), got[i], y[64*k+i])
				}
			}
			if sum != sums[k] {
				t.Errorf("tile %d: sum %g; llama.cpp %g", k, sum, sums[k])
			}
		}
	})
}

func TestDotF16MatchesLlamaCpp(t *testing.T) {
	r := open(t, "dotf16.bin")
	n := r.u32()
	a, b, d64, d128 := r.halves(128*n), r.halves(128*n), r.f32s(n), r.f32s(n)
	r.end()
	for p := range n {
		x, y := a[128*p:128*p+128], b[128*p:128*p+128]
		if got := DotF16(x[:64], y[:64]); !same(got, d64[p]) {
			t.Errorf("pair %d, 64 numbers: %g; llama.cpp %g", p, got, d64[p])
		}
		if got := DotF16(x, y); !same(got, d128[p]) {
			t.Errorf("pair %d, 128 numbers: %g; llama.cpp %g", p, got, d128[p])
		}
	}
}

// TestAttentionMatchesLlamaCpp computes every recorded query's output,
// with Attend for batches of fewer than TileRows rows and AttendTiled for
// the others, and compares them with llama.cpp's, bit for bit but for
// the last bits that Exp, correctly rounded where the C library's expf is
// not, may move: they must agree within 2⁻¹⁸ of the largest output.
func TestAttentionMatchesLlamaCpp(t *testing.T) {
	const hs, heads, positions = 64, 2, 256
	r := open(t, "attention.bin")
	cases := r.u32()
	keys, values := r.halves(positions*hs), r.halves(positions*hs)
	type attnCase struct {
		first, n int
		q, want  []float32
	}
	var all []attnCase
	for range cases {
		first, n := r.u32(), r.u32()
		all = append(all, attnCase{first, n, r.f32s(heads * n * hs), r.f32s(n * heads * hs)})
	}
	r.end()
	paths(t, func(t *testing.T) {
		var s Scratch
		exact, close := 0, 0
		for _, c := range all {
			got := make([]float32, c.n*heads*hs)
			for h := range heads {
				q := c.q[h*c.n*hs:]
				if c.n < TileRows {
					for row := range c.n {
						Attend(got[(row*heads+h)*hs:][:hs], q[row*hs:][:hs], keys, values, hs, c.first+row+1, 0.125, &s)
					}
				} else {
					AttendTiled(got[h*hs:], heads*hs, q, hs, hs, c.n, c.first, keys, values, hs, 0.125, &s)
				}
			}
			var largest float64
			for _, w := range c.want {
				largest = max(largest, math.Abs(float64(w)))
			}
			for i := range got {
				switch d := math.Abs(float64(got[i]) - float64(c.want[i])); {
				case same(got[i], c.want[i]):
					exact++
				case d <= largest*0x1p-18:
					close++
				default:
					t.Fatalf("first %d, %d rows: output %d (row %d, head %d) is %g; llama.cpp %g",
						c.first, c.n, i, i/(heads*hs), i/hs%heads, got[i], c.want[i])
				}
			}
		}
		t.Logf("%d outputs the same as llama.cpp's, %d within 2⁻¹⁸ of the largest", exact, close)
	})
}
