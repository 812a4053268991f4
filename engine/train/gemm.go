package train

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tokenbytoken/course/engine/internal/kernel"
)

// Training spends most of its time in matrix products: kernel.Gemm, an
// AVX2/FMA (or AVX-512) kernel far faster than gonum's float32 product on
// the trainer's shapes, with gonum on other CPUs. Each element of a
// product is summed by one goroutine in a fixed order, so results do not
// depend on scheduling.

// linear computes Y = X·Wᵀ for X (rows, in) and W (out, in): the layer
// applied to every row at once.
func linear(y, x, w []float32, rows, out, in int) {
	kernel.Gemm(false, true, rows, out, in, 1, x, in, w, in, 0, y, out)
}

// linearBackward adds dW += dYᵀ·X and computes dX = dY·W (or adds it into
// dX when accumulate is set).
func linearBackward(dx, dw, dy, x, w []float32, rows, out, in int, accumulate bool) {
	kernel.Gemm(true, false, out, in, rows, 1, dy, out, x, in, 1, dw, in)
	beta := float32(0)
	if accumulate {
		beta = 1
	}
	kernel.Gemm(false, false, rows, in, out, 1, dy, out, w, in, beta, dx, in)
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
