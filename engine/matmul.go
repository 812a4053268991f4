package engine

import (
	"runtime"

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
	// Whole blocks of 4 rows, as one core would take them, so every row
	// is summed the same way whatever the number of cores.
	blocks := (rows + 3) / 4
	parallelFor(blocks, true, func(_, b0, b1 int) {
		r0, r1 := 4*b0, min(4*b1, rows)
		kernel.Gemv(out[r0:r1], x, w[r0*cols:r1*cols])
	})
}

// parallelThreshold is the matrix size (in weights) below which splitting
// the work across cores costs more than it saves. Handing work to a
// waiting helper and waiting for it costs a microsecond or less (see
// parallelFor), the time of some 10^4 multiply-adds.
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
