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
	inParallel(rowWork{len(out), len(x), func(r0, r1 int) { matmulRows(out, x, w, r0, r1) }})
}

// matmulRows computes rows r0..r1-1 of out = W·x.
func matmulRows(out, x, w []float32, r0, r1 int) {
	cols := len(x)
	kernel.Gemv(out[r0:r1], x, w[r0*cols:r1*cols])
}

// rowWork is work that splits by rows: rows rows of cols multiply-adds
// each, and do(r0, r1) does rows r0..r1-1 — computes them, and then
// whatever follows from those rows alone (rotating them, adding them to
// the residual stream).
type rowWork struct {
	rows, cols int
	do         func(r0, r1 int)
}

// inParallel does pieces of row work in one hand-off to the cores, when
// they are large enough to be worth it. Each piece's rows are cut into
// whole blocks of 4, as Gemv takes them on one core, so every row is
// summed the same way whatever the number of cores, and a block never
// mixes two pieces. A decode step hands work to the cores a few dozen
// times, so doing the query, key and value projections in one hand-off,
// and the MLP's two first products in another, saves a third of them.
func inParallel(work ...rowWork) {
	total, blocks := 0, 0
	for _, w := range work {
		total += w.rows * w.cols
		blocks += (w.rows + 3) / 4
	}
	if total < parallelThreshold || maxWorkers() < 2 {
		for _, w := range work {
			w.do(0, w.rows)
		}
		return
	}
	parallelFor(blocks, true, func(_, b0, b1 int) {
		first := 0 // the first block of work[i]
		for _, w := range work {
			n := (w.rows + 3) / 4
			if lo, hi := max(b0-first, 0), min(b1-first, n); lo < hi {
				w.do(4*lo, min(4*hi, w.rows))
			}
			first += n
		}
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

// matmulTokens is matmulBatch on the calling goroutine, for a caller that
// shares the tokens among the cores itself (see byTokens). Row i of out is
// the same, bit for bit, however the tokens are shared.
func matmulTokens(out, x, w []float32, n, rows, cols int) {
	kernel.MulT(n, rows, cols, x, cols, w, cols, out, rows)
}

// maxWorkers is the number of cores Go may use.
func maxWorkers() int { return runtime.GOMAXPROCS(0) }
