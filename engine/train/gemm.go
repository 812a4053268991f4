package train

import (
	"github.com/tokenbytoken/course/engine/internal/parallel"
	"github.com/tokenbytoken/course/engine/internal/simd"
)

// Training spends most of its time in matrix products: simd.Gemm, an
// AVX2/FMA (or AVX-512) kernel far faster than gonum's float32 product on
// the trainer's shapes, with gonum on other CPUs. Each element of a
// product is summed by one goroutine in a fixed order, so results do not
// depend on scheduling.

// linear computes Y = X·Wᵀ for X (rows, in) and W (out, in): the layer
// applied to every row at once.
func linear(y, x, w []float32, rows, out, in int) {
	simd.Gemm(false, true, rows, out, in, 1, x, in, w, in, 0, y, out)
}

// linearBackward adds dW += dYᵀ·X and computes dX = dY·W (or adds it into
// dX when accumulate is set).
func linearBackward(dx, dw, dy, x, w []float32, rows, out, in int, accumulate bool) {
	simd.Gemm(true, false, out, in, rows, 1, dy, out, x, in, 1, dw, in)
	beta := float32(0)
	if accumulate {
		beta = 1
	}
	simd.Gemm(false, false, rows, in, out, 1, dy, out, w, in, beta, dx, in)
}

// forEach runs f(i) for i in [0, n), shared among the cores by the
// engine's team (engine/internal/parallel). Each i is processed by exactly
// one goroutine, so the results do not depend on scheduling as long as
// the calls write to disjoint memory.
func forEach(n int, f func(i int)) {
	parallel.For(n, true, func(_, start, end int) {
		for i := start; i < end; i++ {
			f(i)
		}
	})
}

// forRows runs f over ranges that cover [0, rows) once, shared among the
// cores. The ranges' bounds vary with the number of cores and with
// scheduling: f must compute each row alike whatever range it is in.
func forRows(rows int, f func(r0, r1 int)) {
	parallel.For(rows, true, func(_, r0, r1 int) { f(r0, r1) })
}
