package quant

import (
	"math"

	"github.com/tokenbytoken/course/engine/internal/simd"
)

// F32, F16 and BF16 matrices. Their inputs are used as they are
// (kindFloat): there is nothing to gain from quantizing an input for
// weights of 16 or 32 bits.

// f32Matrix is an F32 matrix; its products are engine/internal/simd's.
// They allocate a little when a range of rows starts or ends inside a
// four of rows (simd.Gemv's arguments escape).
type f32Matrix struct {
	rows, cols int
	w          []float32
}

func newF32(rows, cols int, data []byte) *f32Matrix {
	w := make([]float32, rows*cols)
	dequantizeF32(w, data)
	return &f32Matrix{rows: rows, cols: cols, w: w}
}

func (m *f32Matrix) row(i int, dst []float32) { copy(dst, m.w[i*m.cols:(i+1)*m.cols]) }

func (m *f32Matrix) bytes() int64 { return 4 * int64(len(m.w)) }

func (m *f32Matrix) kind() vecKind { return kindFloat }

// inputs: simd.MulT's kernel takes tokens three at a time.
func (m *f32Matrix) inputs() int { return 3 }

// simd.Gemv and simd.MulT sum the rows below the last multiple of 4
// in fours, with the kernels, and the rows after it one by one, so the
// bits of a row depend on how its range is cut. So the products cut
// [r0, r1) into whole fours below that multiple and the rows above it,
// which go straight to out, and fours cut by r0 or r1, which are computed
// whole and the rows wanted copied: each row is then computed the same
// way whatever the range.

// nextPiece returns the next piece of [lo, r1) (see above): [lo, hi),
// and f, the start of the four to compute whole, or −1 if the piece goes
// straight to out.
func nextPiece(rows, lo, r1 int) (hi, f int) {
	tail := rows / 4 * 4
	switch {
	case lo >= tail:
		return r1, -1
	case lo%4 != 0 || r1 < lo/4*4+4:
		return min(lo/4*4+4, r1), lo / 4 * 4
	}
	return min(r1, tail) / 4 * 4, -1
}

func (m *f32Matrix) mulVec(out []float32, v *Vec, r0, r1 int) {
	x, k := v.x[:m.cols], m.cols
	for lo := r0; lo < r1; {
		hi, f := nextPiece(m.rows, lo, r1)
		if f < 0 {
			simd.Gemv(out[lo:hi], x, m.w[lo*k:hi*k])
		} else {
			var four [4]float32
			simd.Gemv(four[:], x, m.w[f*k:(f+4)*k])
			copy(out[lo:hi], four[lo-f:hi-f])
		}
		lo = hi
	}
}

func (m *f32Matrix) mulBatch(out []float32, v *Vec, t0, t1, r0, r1 int) {
	n, k := t1-t0, m.cols
	x := v.x[t0*k : t1*k]
	for lo := r0; lo < r1; {
		hi, f := nextPiece(m.rows, lo, r1)
		if f < 0 {
			simd.MulT(n, hi-lo, k, x, k, m.w[lo*k:hi*k], k, out[t0*m.rows+lo:], m.rows)
		} else {
			var four [4]float32
			for t := range n {
				simd.MulT(1, 4, k, x[t*k:(t+1)*k], k, m.w[f*k:(f+4)*k], k, four[:], 4)
				copy(out[(t0+t)*m.rows+lo:(t0+t)*m.rows+hi], four[lo-f:hi-f])
			}
		}
		lo = hi
	}
}

// f16Matrix is an F16 or BF16 matrix as GGUF stores it.
type f16Matrix struct {
	bf16       bool
	rows, cols int
	w          []byte
}

func (m *f16Matrix) row(i int, dst []float32) {
	w := m.w[2*i*m.cols : 2*(i+1)*m.cols]
	if m.bf16 {
		dequantizeBF16(dst, w)
	} else {
		dequantizeF16(dst, w)
	}
}

func (m *f16Matrix) bytes() int64 { return int64(len(m.w)) }

func (m *f16Matrix) kind() vecKind { return kindFloat }

func (m *f16Matrix) inputs() int { return 1 }

func (m *f16Matrix) mulVec(out []float32, v *Vec, r0, r1 int) {
	m.mulBatch(out, v, 0, 1, r0, r1)
}

func (m *f16Matrix) mulBatch(out []float32, v *Vec, t0, t1, r0, r1 int) {
	n := 0 // the columns the kernel sums, the others are summed after
	if useAVX2 && m.cols >= 8 {
		n = m.cols / 8 * 8
	}
	kern := f16VecAVX2
	if m.bf16 {
		kern = bf16VecAVX2
	}
	// Chunks of rows that stay in the L1 cache for all the inputs.
	chunk := max(1, l1Bytes/(2*m.cols))
	for c0 := r0; c0 < r1; c0 += chunk {
		c1 := min(r1, c0+chunk)
		for t := t0; t < t1; t++ {
			m.rowsF16(kern, n, out[t*m.rows:(t+1)*m.rows], v.x[t*m.cols:(t+1)*m.cols], c0, c1)
		}
	}
}

// rowsF16 sets o[r] = row r · x for r in [r0, r1), the first n columns
// with kern.
func (m *f16Matrix) rowsF16(kern func(rows, n int, w *byte, stride int, x *float32, out *float32), n int, o, x []float32, r0, r1 int) {
	if n > 0 {
		kern(r1-r0, n, &m.w[2*r0*m.cols], 2*m.cols, &x[0], &o[r0])
	}
	for r := r0; r < r1; r++ {
		w := m.w[2*r*m.cols : 2*(r+1)*m.cols]
		var acc float32
		if n > 0 {
			acc = o[r]
		}
		for j := n; j < m.cols; j++ {
			h := uint16(w[2*j]) | uint16(w[2*j+1])<<8
			var wj float32
			if m.bf16 {
				wj = math.Float32frombits(uint32(h) << 16)
			} else {
				wj = f16(h)
			}
			acc += wj * x[j]
		}
		o[r] = acc
	}
}
