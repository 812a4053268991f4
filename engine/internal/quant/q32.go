package quant

import "github.com/tokenbytoken/course/engine/gguf"

// Q4_0, Q4_1 and Q8_0 matrices, rearranged for their products.
//
// A product reads each weight once, so its speed is how fast the weights
// stream from memory and how few instructions each block of 32 costs.
// Stored as GGUF stores them, each row's blocks are 18 to 34 bytes with
// the scale in front, and a vector loop spends more instructions
// gathering scales and unpacking quants than multiplying. So NewMatrix
// rearranges the blocks once: the rows are taken in groups of 4 (the last
// group padded with rows of zeros), a group's blocks in pairs (the last
// block of an odd count paired with a block of zeros), and each pair of a
// group is stored as
//
//	d   [8]f16   the scales: row 0 to 3 of the first block, then of the
//	             second (r + 4h for row r of block h)
//	m   [8]f16   Q4_1 only: the minimums, in the same order
//	row 0 to 3   the quants of the row's two blocks:
//	             Q4_0, Q4_1: the first block's 16 bytes, then the
//	             second's, as stored (32 bytes)
//	             Q8_0: b0[0:16] b1[0:16] b0[16:32] b1[16:32] (64 bytes)
//
// which takes exactly the bytes of the 8 blocks as stored. A group is
// then one run through memory, and the scales of 4 rows and 2 blocks are
// one vector load; in a 32-byte register, the low nibbles of a 4-bit
// row's pair are numbers 0–15 of both blocks and the high ones numbers
// 16–31, the way the input's quants are laid out (Vec), so two integer
// dot products give 8 sums, 4 per block, in the order of the scales.

// q32Matrix is a Q4_0, Q4_1 or Q8_0 matrix in the layout above.
type q32Matrix struct {
	typ        gguf.Type
	rows, cols int
	groups     int // groups of 4 rows
	pairs      int // pairs of blocks in a row
	scaleBytes int // bytes of scales (and minimums) in a pair
	pairBytes  int // bytes of a pair of a group
	w          []byte
}

func newQ32(t gguf.Type, rows, cols int, data []byte) *q32Matrix {
	m := &q32Matrix{typ: t, rows: rows, cols: cols, groups: (rows + 3) / 4, pairs: pairs(cols), scaleBytes: 16}
	quantBytes := 16 // a block's quants
	switch t {
	case gguf.Q4_1:
		m.scaleBytes = 32
	case gguf.Q8_0:
		quantBytes = 32
	}
	m.pairBytes = m.scaleBytes + 4*2*quantBytes
	m.w = make([]byte, m.groups*m.pairs*m.pairBytes)
	bb := t.BlockBytes()
	rowBytes := cols / 32 * bb
	for r := range rows {
		for b := range cols / 32 {
			m.putBlock(r, b, data[r*rowBytes+b*bb:(r+1)*rowBytes])
		}
	}
	return m
}

// offsets returns where block b of row r is: its scale, its minimum
// (Q4_1) and its quants, which are 16 bytes at q, and for Q8_0 16 more at
// q+32.
func (m *q32Matrix) offsets(r, b int) (d, mn, q int) {
	g, i := r/4, r%4
	p, h := b/2, b%2
	base := (g*m.pairs + p) * m.pairBytes
	d = base + 2*(4*h+i)
	mn = d + 16
	if m.typ == gguf.Q8_0 {
		return d, -1, base + m.scaleBytes + 64*i + 16*h
	}
	return d, mn, base + m.scaleBytes + 32*i + 16*h
}

// putBlock stores block b of row r, given as GGUF stores it.
func (m *q32Matrix) putBlock(r, b int, blk []byte) {
	d, mn, q := m.offsets(r, b)
	copy(m.w[d:d+2], blk[0:2])
	switch m.typ {
	case gguf.Q4_0:
		copy(m.w[q:q+16], blk[2:18])
	case gguf.Q4_1:
		copy(m.w[mn:mn+2], blk[2:4])
		copy(m.w[q:q+16], blk[4:20])
	case gguf.Q8_0:
		copy(m.w[q:q+16], blk[2:18])
		copy(m.w[q+32:q+48], blk[18:34])
	}
}

// getBlock sets blk to block b of row r as GGUF stores it.
func (m *q32Matrix) getBlock(r, b int, blk []byte) {
	d, mn, q := m.offsets(r, b)
	copy(blk[0:2], m.w[d:d+2])
	switch m.typ {
	case gguf.Q4_0:
		copy(blk[2:18], m.w[q:q+16])
	case gguf.Q4_1:
		copy(blk[2:4], m.w[mn:mn+2])
		copy(blk[4:20], m.w[q:q+16])
	case gguf.Q8_0:
		copy(blk[2:18], m.w[q:q+16])
		copy(blk[18:34], m.w[q+32:q+48])
	}
}

func (m *q32Matrix) row(i int, dst []float32) {
	var blk [34]byte
	deq := dequantizers[m.typ]
	for b := range m.cols / 32 {
		m.getBlock(i, b, blk[:])
		deq(dst[32*b:32*b+32], blk[:])
	}
}

func (m *q32Matrix) bytes() int64 { return int64(len(m.w)) }

func (m *q32Matrix) kind() vecKind { return kindQ8x32 }

func (m *q32Matrix) mulVec(out []float32, v *Vec, r0, r1 int) {
	m.mulBatch(out, v, 0, 1, r0, r1)
}

func (m *q32Matrix) mulBatch(out []float32, v *Vec, t0, t1, r0, r1 int) {
	// Whole groups go straight to out; a group cut by r0 or r1 is
	// computed whole and the rows wanted copied, so that each row is
	// summed the same way whatever the range.
	var sums [4]float32
	for t := t0; t < t1; t++ {
		o := out[t*m.rows : (t+1)*m.rows]
		for g := r0 / 4; g < (r1+3)/4; g++ {
			m.groupGo(g, v, t, &sums)
			for i := range 4 {
				if r := 4*g + i; r0 <= r && r < r1 {
					o[r] = sums[i]
				}
			}
		}
	}
}

// groupGo sets sums to the products of the 4 rows of group g with input t
// of v, in plain Go: for each block, the integer dot product of the
// weights' and the input's quants, times the two scales, summed in
// float32, and for Q4_1 the minimum times the input's sum.
func (m *q32Matrix) groupGo(g int, v *Vec, t int, sums *[4]float32) {
	np := m.pairs
	q, d, s, sum := v.q[t*64*np:(t+1)*64*np], v.d[t*8*np:], v.s[t*8*np:], v.sum[t*8*np:]
	var acc, accMin [4]float32
	for p := range np {
		pair := m.w[(g*np+p)*m.pairBytes : (g*np+p+1)*m.pairBytes]
		quants := pair[m.scaleBytes:]
		for h := range 2 {
			x := q[64*p+16*h:] // numbers 0–15 at x[0:16], 16–31 at x[32:48]
			dx := d[8*p+4*h]   // the input block's scale
			sx := s[8*p+4*h]   // its scale times the sum of its quants
			var xsum int32     // the sum of its quants
			for _, l := range sum[8*p+4*h : 8*p+4*h+4] {
				xsum += l
			}
			for i := range 4 {
				dw := f16At(pair[2*(4*h+i):])
				var dot int32
				switch m.typ {
				case gguf.Q4_0, gguf.Q4_1:
					w := quants[32*i+16*h : 32*i+16*h+16]
					for j, c := range w {
						dot += int32(c&0xf)*int32(x[j]) + int32(c>>4)*int32(x[32+j])
					}
					if m.typ == gguf.Q4_0 {
						dot -= 8 * xsum // the quants stand for q − 8
					} else {
						accMin[i] += f16At(pair[16+2*(4*h+i):]) * sx
					}
				case gguf.Q8_0:
					w := quants[64*i+16*h:]
					for j := range 16 {
						dot += int32(int8(w[j]))*int32(x[j]) + int32(int8(w[32+j]))*int32(x[32+j])
					}
				}
				acc[i] += dw * dx * float32(dot)
			}
		}
	}
	for i := range 4 {
		sums[i] = acc[i] + accMin[i]
	}
}
