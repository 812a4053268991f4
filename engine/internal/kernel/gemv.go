package kernel

import "fmt"

// Gemv sets out = W·x for a row-major W of shape (rows, cols) = (len(out),
// len(x)): the matrix-vector product of a decoding step. Rows are taken
// four at a time with x loaded once for all four, rows fetched from
// memory ahead of time (see shortRow), columns 8 at a time and the last
// few through a mask; rows past the last multiple of 4 are summed in plain
// Go. Without the kernels (!Available) it goes through gonum. It panics if
// w is shorter than rows·cols.
func Gemv(out, x, w []float32) {
	rows, cols := len(out), len(x)
	if len(w) < rows*cols {
		panic(fmt.Sprintf("kernel: Gemv: W holds %d numbers, not %d×%d", len(w), rows, cols))
	}
	if !Available {
		gonumGemv(out, x, w)
		return
	}
	if rows == 0 {
		return
	}
	if cols == 0 {
		clear(out)
		return
	}
	ahead := 0
	if cols <= shortRow {
		ahead = 4 * prefetchRows * cols
	}
	r := 0
	for ; r+4 <= rows; r += 4 {
		dot4(cols, &x[0], &w[r*cols], cols, &out[r], ahead)
	}
	for ; r < rows; r++ {
		out[r] = dotGo(w[r*cols:(r+1)*cols], x)
	}
}

// shortRow and prefetchRows set Gemv's prefetching. A matrix is read 4
// rows at a time, in 4 runs along the rows: for rows of up to 2 kB those
// runs are too short for the processor to notice them and fetch ahead
// from memory by itself, so a large such matrix (the vocabulary
// projection of a small model) is read well below the memory's speed. So
// for rows of up to shortRow numbers (2 kB), dot4 fetches the rows
// prefetchRows further on while it works on 4 of them (16 kB ahead at
// most): without that, a decode step of the stories15M shape (rows of 288
// numbers) took 1.3 times as long on one core. Longer rows are left to
// the processor, which streams them better alone: on the 110M shape (rows
// of 768 and 2048 numbers), fetching them ahead too made a step 2–4%
// slower on one core, and no faster on two.
const (
	shortRow     = 512
	prefetchRows = 8
)

func dotGo(a, b []float32) float32 {
	var s float32
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
