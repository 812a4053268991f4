package simd

import "fmt"

// Gemv sets out = W·x for a row-major W of shape (rows, cols) = (len(out),
// len(x)): the matrix-vector product of a decoding step. Rows are taken
// four at a time, one from each quarter of W, with x loaded once for all
// four, columns 8 at a time and the last few through a mask; rows past the
// last multiple of 4 are summed in plain Go. Each row is summed the same
// way whichever rows it is taken with, so Gemv on rows r0..r1-1 of W,
// with r0 and r1 multiples of 4 (or r1 = rows), gives those rows of out
// bit for bit. Without the kernels (!Available) it goes through gonum. It
// panics if w is shorter than rows·cols.
func Gemv(out, x, w []float32) {
	rows, cols := len(out), len(x)
	if len(w) < rows*cols {
		panic(fmt.Sprintf("simd: Gemv: W holds %d numbers, not %d×%d", len(w), rows, cols))
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
	// The four rows are r, q+r, 2q+r and 3q+r, not four neighbours: the
	// weights are then read as four long runs through memory, one a
	// quarter of W, that the processor sees coming and fetches ahead by
	// itself. Four neighbouring rows are four short runs side by side,
	// each a row long (1–3 kB in the course's models), which it follows
	// less well, even with prefetch instructions.
	q := rows / 4
	var sums [4]float32
	for r := range q {
		dot4(cols, &x[0], &w[r*cols], q*cols, &sums[0])
		out[r], out[q+r], out[2*q+r], out[3*q+r] = sums[0], sums[1], sums[2], sums[3]
	}
	for r := 4 * q; r < rows; r++ {
		out[r] = dotGo(w[r*cols:(r+1)*cols], x)
	}
}

func dotGo(a, b []float32) float32 {
	var s float32
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
