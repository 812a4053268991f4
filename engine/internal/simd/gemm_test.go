package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGemmMatchesGonum checks the blocked product against gonum's on every
// transpose combination, with shapes that leave edges in every direction,
// strides wider than the rows, and the alpha and beta the trainer uses.
func TestGemmMatchesGonum(t *testing.T) {
	requireKernel(t)
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	shapes := [][3]int{{1, 1, 1}, {4, 16, 1}, {5, 17, 3}, {8, 32, 300}, {37, 53, 29}, {64, 352, 128}, {130, 48, 513}, {3, 15, 7}, {2, 7, 16}, {7, 13, 1100}, {200, 12, 72}, {100, 30, 1030}}
	for _, sh := range shapes {
		m, n, k := sh[0], sh[1], sh[2]
		for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
			for _, ab := range [][2]float32{{1, 0}, {1, 1}, {0.25, 1}, {-2, 0.5}} {
				name := fmt.Sprintf("m%d_n%d_k%d_tA%v_tB%v_alpha%g_beta%g", m, n, k, tr[0], tr[1], ab[0], ab[1])
				t.Run(name, func(t *testing.T) {
					ar, ac, br, bc := m, k, k, n
					if tr[0] {
						ar, ac = k, m
					}
					if tr[1] {
						br, bc = n, k
					}
					lda, ldb, ldc := ac+3, bc+1, n+5
					a, b := fill((ar-1)*lda+ac), fill((br-1)*ldb+bc)
					c0 := fill((m-1)*ldc + n)
					want, got := append([]float32(nil), c0...), append([]float32(nil), c0...)
					gonumGemm(tr[0], tr[1], m, n, k, ab[0], a, lda, b, ldb, ab[1], want, ldc)
					gemmKernel(tr[0], tr[1], m, n, k, ab[0], a, lda, b, ldb, ab[1], got, ldc)
					for i := range m {
						for j := range ldc {
							idx := i*ldc + j
							if idx >= len(got) {
								break
							}
							if j >= n { // padding between rows must be untouched
								if got[idx] != c0[idx] {
									t.Fatalf("C[%d][%d] is padding and changed: %g, was %g", i, j, got[idx], c0[idx])
								}
								continue
							}
							tol := 1e-4 * float32(math.Sqrt(float64(k))+1) * (1 + abs32(want[idx]))
							if d := abs32(got[idx] - want[idx]); d > tol {
								t.Fatalf("C[%d][%d] = %g, gonum gives %g (difference %g, tolerance %g)", i, j, got[idx], want[idx], d, tol)
							}
						}
					}
				})
			}
		}
	}
}

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }

// TestGemmRejectsShortMatrices checks that a matrix too short for its shape
// stops with a message before the kernel reads past it.
func TestGemmRejectsShortMatrices(t *testing.T) {
	requireKernel(t)
	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("Gemm accepted an A of 15 numbers for a 4×4 matrix")
		}
		if msg := fmt.Sprint(r); msg != "simd: Gemm: A is 4×4 with row stride 4 but holds only 15 numbers" {
			t.Fatalf("panic message %q", msg)
		}
	}()
	Gemm(false, false, 4, 16, 4, 1, make([]float32, 15), 4, make([]float32, 64), 16, 0, make([]float32, 64), 16)
}

// BenchmarkGemm times the products of training (B as stored, "NN") and of
// a prefill (a batch of 128 tokens times a weight matrix stored as
// (outputs, inputs) rows, "NT": the stories15M shape's MLP and the 110M
// shape's).
func BenchmarkGemm(b *testing.B) {
	for _, sh := range [][4]int{{2048, 352, 128, 0}, {2048, 128, 352, 0}, {128, 352, 2048, 0}, {2048, 2048, 128, 0},
		{128, 768, 288, 1}, {128, 288, 768, 1}, {128, 2048, 768, 1}, {8, 2048, 768, 1}} {
		m, n, k, tb := sh[0], sh[1], sh[2], sh[3] == 1
		ldb, form := n, "NN"
		if tb {
			ldb, form = k, "NT"
		}
		a, bb, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
		for i := range a {
			a[i] = float32(i%7) - 3 // gonum skips zeros in A
		}
		for i := range bb {
			bb[i] = float32(i%5) - 2
		}
		for _, impl := range []struct {
			name string
			f    func(bool, bool, int, int, int, float32, []float32, int, []float32, int, float32, []float32, int)
		}{{"kernel", Gemm}, {"kernel-avx2", func(ta, tb bool, m, n, k int, al float32, a []float32, lda int, b []float32, ldb int, be float32, c []float32, ldc int) {
			defer func(w bool) { wide = w }(wide)
			wide = false
			Gemm(ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc)
		}}, {"gonum", gonumGemm}} {
			if impl.name != "gonum" && !Available {
				continue
			}
			b.Run(fmt.Sprintf("%s/%s/%dx%dx%d", impl.name, form, m, n, k), func(b *testing.B) {
				for b.Loop() {
					impl.f(false, tb, m, n, k, 1, a, k, bb, ldb, 0, c, n)
				}
				b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// TestWideKernelIsBitIdentical checks that the AVX-512 kernel gives exactly
// the AVX2 kernel's results, so trained weights do not depend on which of
// the two the CPU runs.
func TestWideKernelIsBitIdentical(t *testing.T) {
	requireKernel(t)
	if !wide {
		t.Skip("this CPU has no AVX-512: only the AVX2 kernel runs here")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sh := range [][3]int{{37, 100, 300}, {2048, 352, 128}, {128, 448, 600}, {9, 64, 5}} {
		m, n, k := sh[0], sh[1], sh[2]
		for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}} {
			ar, ac, br, bc := m, k, k, n
			if tr[0] {
				ar, ac = k, m
			}
			if tr[1] {
				br, bc = n, k
			}
			a, b, c0 := make([]float32, ar*ac), make([]float32, br*bc), make([]float32, m*n)
			for _, v := range [][]float32{a, b, c0} {
				for i := range v {
					v[i] = float32(rng.NormFloat64())
				}
			}
			got, want := append([]float32(nil), c0...), append([]float32(nil), c0...)
			Gemm(tr[0], tr[1], m, n, k, 0.5, a, ac, b, bc, 1, got, n)
			wide = false
			Gemm(tr[0], tr[1], m, n, k, 0.5, a, ac, b, bc, 1, want, n)
			wide = true
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%d×%d×%d trans %v: element %d is %g with AVX-512 and %g with AVX2", m, n, k, tr, i, got[i], want[i])
				}
			}
		}
	}
}

// TestMulTMatchesPlainLoopAndIgnoresGrouping checks MulT against the plain
// triple loop (in float64) on shapes with edges in every direction, and
// that every row of C comes out bit for bit the same whether the rows of A
// are multiplied all at once or in runs of any length: a prefill shares
// its tokens among the cores in runs, and the logits must not depend on
// how.
func TestMulTMatchesPlainLoopAndIgnoresGrouping(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sh := range [][3]int{{1, 4, 8}, {2, 5, 3}, {7, 12, 64}, {10, 9, 100}, {100, 8, 1030}, {128, 36, 288}} {
		m, n, k := sh[0], sh[1], sh[2]
		lda, ldb, ldc := k+1, k+3, n+2
		a, b := make([]float32, m*lda), make([]float32, n*ldb)
		for _, v := range [][]float32{a, b} {
			for i := range v {
				v[i] = float32(rng.NormFloat64())
			}
		}
		all := make([]float32, m*ldc)
		MulT(m, n, k, a, lda, b, ldb, all, ldc)
		for i := range m {
			for j := range n {
				var want float64
				for p := range k {
					want += float64(a[i*lda+p]) * float64(b[j*ldb+p])
				}
				tol := 1e-5 * float64(k)
				if d := math.Abs(float64(all[i*ldc+j]) - want); d > tol {
					t.Fatalf("%d×%d×%d: MulT gives C[%d][%d] = %g; the plain loop %g", m, n, k, i, j, all[i*ldc+j], want)
				}
			}
		}
		for _, run := range []int{1, 2, 4, 5} {
			runs := make([]float32, m*ldc)
			for i0 := 0; i0 < m; i0 += run {
				i1 := min(i0+run, m)
				MulT(i1-i0, n, k, a[i0*lda:], lda, b, ldb, runs[i0*ldc:], ldc)
			}
			for i := range m {
				for j := range n {
					if got, want := runs[i*ldc+j], all[i*ldc+j]; math.Float32bits(got) != math.Float32bits(want) {
						t.Fatalf("%d×%d×%d in runs of %d rows: C[%d][%d] = %g; all rows at once give %g", m, n, k, run, i, j, got, want)
					}
				}
			}
		}
	}
}

// BenchmarkMulTFromMemory is one core's share of a 128-token prefill on
// two cores (a run of 33 tokens, see the engine's byTokens) times the
// 110M shape's MLP matrices, up (2048×768) and down (768×2048), with and
// without fetching the next block of weight rows ahead. It cycles through
// enough matrices (48 MB) that each comes from memory, not from a cache,
// as a layer's weights do in a prefill.
func BenchmarkMulTFromMemory(b *testing.B) {
	requireKernel(b)
	const m, matrices = 33, 8
	for _, sh := range [][2]int{{2048, 768}, {768, 2048}} {
		n, k := sh[0], sh[1]
		a, c := make([]float32, m*k), make([]float32, m*n)
		for i := range a {
			a[i] = float32(i%7) - 3
		}
		ws := make([][]float32, matrices)
		for i := range ws {
			ws[i] = make([]float32, n*k)
			for j := range ws[i] {
				ws[i][j] = float32((i+j)%5) - 2
			}
		}
		for _, ahead := range []bool{true, false} {
			b.Run(fmt.Sprintf("%dx%dx%d/prefetch=%v", m, n, k, ahead), func(b *testing.B) {
				defer func(p bool) { prefetchNext = p }(prefetchNext)
				prefetchNext = ahead
				for i := 0; b.Loop(); i++ {
					MulT(m, n, k, a, k, ws[i%matrices], k, c, n)
				}
				b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
