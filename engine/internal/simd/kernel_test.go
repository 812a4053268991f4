package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// requireKernel skips a test on a CPU without the kernels, except in CI,
// where an untested kernel is a failure.
func requireKernel(t testing.TB) {
	t.Helper()
	if Available {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal("this CPU has no AVX2/FMA, so the kernels cannot be tested here")
	}
	t.Skip("this CPU has no AVX2/FMA: the callers use gonum, and there is no kernel to test")
}

// TestGemvMatchesFloat64 compares Gemv with dot products summed in float64,
// for shapes with every remainder of rows modulo 4 and columns modulo 16.
func TestGemvMatchesFloat64(t *testing.T) {
	requireKernel(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, rows := range []int{1, 2, 3, 4, 5, 7, 8, 64, 172, 513} {
		for _, cols := range []int{1, 3, 7, 8, 9, 15, 16, 17, 24, 31, 64, 172, 288, 768} {
			t.Run(fmt.Sprintf("%dx%d", rows, cols), func(t *testing.T) {
				w, x := make([]float32, rows*cols+5), make([]float32, cols)
				for i := range w {
					w[i] = float32(rng.NormFloat64())
				}
				for i := range x {
					x[i] = float32(rng.NormFloat64())
				}
				out := make([]float32, rows)
				for i := range out {
					out[i] = float32(math.NaN()) // must be overwritten
				}
				Gemv(out, x, w)
				for r := range rows {
					var want, mag float64
					for j := range cols {
						p := float64(w[r*cols+j]) * float64(x[j])
						want += p
						mag += math.Abs(p)
					}
					if d := math.Abs(float64(out[r]) - want); !(d <= 1e-6*mag+1e-7) {
						t.Fatalf("row %d: %g, float64 sum %g (difference %g)", r, out[r], want, d)
					}
				}
			})
		}
	}
}

// TestGemvSameBitsOnAnyRows computes W·x whole and then by ranges of
// rows starting at multiples of 4, as the cores share it out: every row
// must come out bit for bit the same, whichever rows it was taken with.
func TestGemvSameBitsOnAnyRows(t *testing.T) {
	requireKernel(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, rows := range []int{4, 9, 64, 172, 513} {
		for _, cols := range []int{7, 64, 288} {
			w, x := make([]float32, rows*cols), make([]float32, cols)
			for i := range w {
				w[i] = float32(rng.NormFloat64())
			}
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			whole := make([]float32, rows)
			Gemv(whole, x, w)
			for _, step := range []int{4, 8, 12, 20, 64} {
				parts := make([]float32, rows)
				for r0 := 0; r0 < rows; r0 += step {
					r1 := min(r0+step, rows)
					Gemv(parts[r0:r1], x, w[r0*cols:r1*cols])
				}
				for r := range rows {
					if math.Float32bits(parts[r]) != math.Float32bits(whole[r]) {
						t.Fatalf("%dx%d: row %d is %v from Gemv of the whole matrix but %v from Gemv of ranges of %d rows", rows, cols, r, whole[r], parts[r], step)
					}
				}
			}
		}
	}
}

func TestGemvEdges(t *testing.T) {
	requireKernel(t)
	Gemv(nil, []float32{1, 2}, nil) // no rows: nothing to do
	out := []float32{7, 7}
	Gemv(out, nil, nil) // no columns: empty sums
	if out[0] != 0 || out[1] != 0 {
		t.Errorf("empty dot products gave %v, want zeros", out)
	}
	defer func() {
		if r := recover(); r == nil || fmt.Sprint(r) != "simd: Gemv: W holds 15 numbers, not 2×8" {
			t.Errorf("short W: panic %v", r)
		}
	}()
	Gemv(make([]float32, 2), make([]float32, 8), make([]float32, 15))
}

func BenchmarkGemv(b *testing.B) {
	for _, sh := range [][2]int{{64, 64}, {172, 64}, {512, 64}, {288, 288}, {768, 288}, {32000, 288}} {
		rows, cols := sh[0], sh[1]
		w, x, out := make([]float32, rows*cols), make([]float32, cols), make([]float32, rows)
		for i := range w {
			w[i] = float32(i%7) - 3
		}
		for i := range x {
			x[i] = float32(i%5) - 2
		}
		for _, impl := range []struct {
			name string
			f    func()
		}{
			{"kernel", func() { Gemv(out, x, w) }},
			{"gonum", func() {
				blas32.Gemv(blas.NoTrans, 1, blas32.General{Rows: rows, Cols: cols, Stride: cols, Data: w},
					blas32.Vector{N: cols, Inc: 1, Data: x}, 0, blas32.Vector{N: rows, Inc: 1, Data: out})
			}},
		} {
			if impl.name == "kernel" && !Available {
				continue
			}
			b.Run(fmt.Sprintf("%s/%dx%d", impl.name, rows, cols), func(b *testing.B) {
				for b.Loop() {
					impl.f()
				}
				b.ReportMetric(2*float64(rows*cols)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// TestGemvReadsNothingPastTheRows puts infinities right after the last
// row of W (and x): the masked last columns must neither read nor add
// them, or the products would be NaN or infinite.
func TestGemvReadsNothingPastTheRows(t *testing.T) {
	requireKernel(t)
	for _, cols := range []int{1, 5, 13, 20} {
		rows := 8
		w := make([]float32, rows*cols+16)
		x := make([]float32, cols+16)
		for i := range w {
			w[i] = float32(math.Inf(1))
			if i < rows*cols {
				w[i] = 1
			}
		}
		for i := range x {
			x[i] = float32(math.Inf(-1))
			if i < cols {
				x[i] = 2
			}
		}
		out := make([]float32, rows)
		Gemv(out, x[:cols], w[:rows*cols])
		for r, v := range out {
			if v != float32(2*cols) {
				t.Fatalf("cols=%d: row %d gives %v, want %d", cols, r, v, 2*cols)
			}
		}
	}
}
