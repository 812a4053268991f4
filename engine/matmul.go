package engine

import (
	"runtime"
	"sync"

	"github.com/tokenbytoken/course/engine/internal/kernel"
)

// matmul computes out = W·x for a row-major matrix W of shape (len(out),
// len(x)): one dot product per output. This matrix-vector product is where a
// decoding step spends almost all of its time, and it is limited by how fast
// the weights stream from memory: each weight is used for one multiply-add.
// The products are engine/internal/kernel's: AVX2/FMA kernels where the CPU
// has them, gonum's blas32 otherwise.
// Large products are split by rows across the available cores.
func matmul(out, x, w []float32) {
	rows, cols := len(out), len(x)
	if rows*cols < parallelThreshold || maxWorkers() < 2 {
		kernel.Gemv(out, x, w[:rows*cols])
		return
	}
	parallelFor(rows, true, func(_, r0, r1 int) {
		kernel.Gemv(out[r0:r1], x, w[r0*cols:r1*cols])
	})
}

// parallelThreshold is the matrix size (in weights) below which splitting
// the work across cores costs more than it saves. Starting a goroutine and
// waiting for it costs about a microsecond, the time of some 10^4
// multiply-adds.
const parallelThreshold = 1 << 16

// matmulBatch computes out = X·Wᵀ for n input rows at once: X is (n, cols),
// W is (rows, cols) and out is (n, rows). Row i of out is W·x_i, as matmul
// would give, but the matrix-matrix product reads each weight once for all
// n rows (and splits the work across cores itself).
func matmulBatch(out, x, w []float32, n, rows, cols int) {
	kernel.Gemm(false, true, n, rows, cols, 1, x[:n*cols], cols, w[:rows*cols], cols, 0, out[:n*rows], rows)
}

// maxWorkers is the number of cores Go may use.
func maxWorkers() int { return runtime.GOMAXPROCS(0) }

// parallelFor splits the items 0..n-1 into one contiguous range per core
// and calls f(worker, start, end) for each range at the same time. When
// worth is false, or there is a single core, it calls f(0, 0, n) directly.
func parallelFor(n int, worth bool, f func(worker, start, end int)) {
	workers := min(maxWorkers(), n)
	if !worth || workers < 2 {
		f(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for wk, r0 := 0, 0; r0 < n; wk, r0 = wk+1, r0+per {
		r1 := min(r0+per, n)
		if r1 == n { // the last range runs on this goroutine
			f(wk, r0, r1)
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(wk, r0, r1)
		}()
	}
	wg.Wait()
}
