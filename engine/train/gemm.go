package train

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tokenbytoken/course/engine/internal/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// gemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices, where
// op(A) is (m, k), op(B) is (k, n) and C is (m, n); transA and transB say
// whether A and B are stored transposed. lda, ldb and ldc are the row
// strides, so a block of columns of a wider matrix can be passed as a view.
//
// Training spends most of its time here. On CPUs with AVX2 and FMA the
// product runs in the register-blocked kernel of engine/internal/kernel,
// which keeps blocks of C in registers (about 8× gonum's float32 product on
// the trainer's shapes); elsewhere it goes through gonum. Both compute each
// element of C on one goroutine in a fixed order, so results do not depend
// on scheduling.
func gemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if kernel.Available {
		kernel.Gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	gemmGonum(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// gemmGonum is gemm through gonum's blas32, which computes large products
// on all cores, each output block on one goroutine.
func gemmGonum(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	ta, tb := blas.NoTrans, blas.NoTrans
	ar, ac, br, bc := m, k, k, n
	if transA {
		ta, ar, ac = blas.Trans, k, m
	}
	if transB {
		tb, br, bc = blas.Trans, n, k
	}
	blas32.Gemm(ta, tb, alpha,
		blas32.General{Rows: ar, Cols: ac, Stride: lda, Data: a},
		blas32.General{Rows: br, Cols: bc, Stride: ldb, Data: b},
		beta, blas32.General{Rows: m, Cols: n, Stride: ldc, Data: c})
}

// linear computes Y = X·Wᵀ for X (rows, in) and W (out, in): the layer
// applied to every row at once.
func linear(y, x, w []float32, rows, out, in int) {
	gemm(false, true, rows, out, in, 1, x, in, w, in, 0, y, out)
}

// linearBackward adds dW += dYᵀ·X and computes dX = dY·W (or adds it into
// dX when accumulate is set).
func linearBackward(dx, dw, dy, x, w []float32, rows, out, in int, accumulate bool) {
	gemm(true, false, out, in, rows, 1, dy, out, x, in, 1, dw, in)
	beta := float32(0)
	if accumulate {
		beta = 1
	}
	gemm(false, false, rows, in, out, 1, dy, out, w, in, beta, dx, in)
}

// parallel runs f(i) for i in [0, n) on all cores. Each i is processed by
// exactly one goroutine, so the results do not depend on scheduling as long
// as the calls write to disjoint memory.
func parallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

// parallelRows runs f over [0, rows) cut into one contiguous range per core.
func parallelRows(rows int, f func(r0, r1 int)) {
	workers := runtime.GOMAXPROCS(0)
	per := (rows + workers - 1) / workers
	parallel(workers, func(w int) {
		r0, r1 := w*per, min((w+1)*per, rows)
		if r0 < r1 {
			f(r0, r1)
		}
	})
}
