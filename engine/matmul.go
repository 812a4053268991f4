package engine

import (
	"sync"

	"github.com/tokenbytoken/course/engine/internal/quant"
)

// matmul computes out = W·x, x prepared in v: one dot product per output.
// This matrix-vector product is where a decoding step spends almost all of
// its time, and it is limited by how fast the weights stream from memory:
// each weight is used for one multiply-add. Each tensor type has its own
// kernels (see Matrix): AVX2/FMA for float32 where the CPU has them, and
// for the quantized types integer dot products against x quantized to 8
// bits. Large products are split by rows across the available cores.
func matmul(out, x []float32, w *Matrix, v *quant.Vec) {
	w.Prepare(x, v)
	inParallel(rowJob{out: out, v: v, w: w})
}

// rowJob is a matrix-vector product out = W·x of a decode step, x
// prepared in v for W's products, with what follows from each of its rows
// alone, so that a core that computed some rows can finish them:
//   - with up and wUp, up = W_up·x too (x prepared in vUp), then
//     out = silu(out)·up (the MLP's SwiGLU gate);
//   - with rope, the rows are rotated for position pos (q and k);
//   - with residual, the rows are added to it (the residual stream).
type rowJob struct {
	out      []float32
	v        *quant.Vec
	w        *Matrix
	up       []float32
	vUp      *quant.Vec
	wUp      *Matrix
	rope     *ropeTable
	pos      int
	residual []float32
}

// rows and cols are the job's number of rows and its multiply-adds a row.
func (j *rowJob) rows() int { return len(j.out) }
func (j *rowJob) cols() int {
	if j.wUp != nil {
		return 2 * j.w.Cols()
	}
	return j.w.Cols()
}

// do does rows r0..r1-1 of the job.
func (j *rowJob) do(r0, r1 int) {
	j.w.MulVec(j.out, j.v, r0, r1)
	if j.wUp != nil {
		j.wUp.MulVec(j.up, j.vUp, r0, r1)
		swiglu(j.out[r0:r1], j.up[r0:r1])
	}
	if j.rope != nil {
		j.rope.applyRows(j.out, j.pos, r0, r1)
	}
	if j.residual != nil {
		add(j.residual[r0:r1], j.out[r0:r1])
	}
}

// inParallel does jobs in one hand-off to the cores, when they are large
// enough to be worth it. Each job's rows are cut into whole blocks of 4,
// so every range a core gets starts at a multiple of 4 and Gemv sums each
// row the same way whatever the number of cores (see Gemv), and a block
// never mixes two jobs. A decode step hands work to the cores a few dozen
// times, so doing the query, key and value projections in one hand-off,
// and the MLP's two first products in another, saves a third of them.
func inParallel(jobs ...rowJob) {
	work, blocks := 0, 0
	for i := range jobs {
		work += jobs[i].rows() * jobs[i].cols()
		blocks += (jobs[i].rows() + 3) / 4
	}
	if work < parallelThreshold || maxWorkers() < 2 {
		for i := range jobs {
			jobs[i].do(0, jobs[i].rows())
		}
		return
	}
	h := handOffs.Get().(*handOff)
	h.jobs = append(h.jobs[:0], jobs...) // the helpers' copy: jobs stays on the caller's stack
	parallelFor(blocks, true, h.do)
	clear(h.jobs) // drop the references to the step's vectors
	handOffs.Put(h)
}

// handOff is one hand-off's jobs, for the cores to share by blocks of 4
// rows. Its do method is bound once, when the handOff is made, so that a
// decode step hands work out without allocating.
type handOff struct {
	jobs []rowJob
	do   func(worker, b0, b1 int)
}

var handOffs = sync.Pool{New: func() any {
	h := new(handOff)
	h.do = h.blocks
	return h
}}

// blocks does blocks b0..b1-1 of the hand-off's jobs, counted through
// the jobs in order.
func (h *handOff) blocks(_, b0, b1 int) {
	first := 0 // the first block of h.jobs[i]
	for i := range h.jobs {
		n := (h.jobs[i].rows() + 3) / 4
		if lo, hi := max(b0-first, 0), min(b1-first, n); lo < hi {
			h.jobs[i].do(4*lo, min(4*hi, h.jobs[i].rows()))
		}
		first += n
	}
}

// parallelThreshold is the matrix size (in weights) below which splitting
// the work across cores costs more than it saves. Handing work to a
// waiting helper and waiting for it (see parallelFor) takes about as long
// as some 10^4 multiply-adds, and a second core saves half the work: a
// few times 10^4 is where sharing starts to pay. A small model's
// products (the course's default target's query, key and value, or its
// output projection) sit just above it, and sharing them is most of what
// its second core gains.
const parallelThreshold = 1 << 15

// matmulTokens computes out = X·Wᵀ for n input rows at once, on the
// calling goroutine, for a caller that shares the tokens among the cores
// itself (see byTokens): X, prepared in v (Matrix.PrepareBatch), is (n,
// cols), and out is (n, rows). Row i of out is W·x_i, as a decode step's
// product would give it (for float32, up to the order of the sums), but
// each weight is read once for all n rows.
func matmulTokens(out []float32, w *Matrix, n int, v *quant.Vec) {
	w.MulBatch(out, v, 0, n, 0, w.Rows())
}
