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
	for b := range m.cols / 32 {
		m.getBlock(i, b, blk[:])
		y := dst[32*b : 32*b+32]
		switch m.typ {
		case gguf.Q4_0:
			dequantizeQ4_0(y, blk[:18])
		case gguf.Q4_1:
			dequantizeQ4_1(y, blk[:20])
		case gguf.Q8_0:
			dequantizeQ8_0(y, blk[:34])
		}
	}
}

func (m *q32Matrix) bytes() int64 { return int64(len(m.w)) }

func (m *q32Matrix) kind() vecKind { return kindQ8x32 }

func (m *q32Matrix) mulVec(out []float32, v *Vec, r0, r1 int) {
	m.mulInput(out, v, 0, r0, r1)
}

func (m *q32Matrix) mulBatch(out []float32, v *Vec, t0, t1, r0, r1 int) {
	// The rows go in chunks whose weights stay in the L1 cache while
	// every input passes over them, four at a time where there is a
	// kernel for four, then one at a time.
	chunk := 4 * max(1, l1Bytes/(m.pairs*m.pairBytes))
	for c0 := r0; c0 < r1; {
		c1 := min(r1, c0/chunk*chunk+chunk)
		t := t0
		for ; useVNNI && t+4 <= t1; t += 4 {
			m.mulFour(out, v, t, c0, c1)
		}
		for ; t < t1; t++ {
			m.mulInput(out[t*m.rows:(t+1)*m.rows], v, t, c0, c1)
		}
		c0 = c1
	}
}

// l1Bytes is how many bytes of weights a batch product works on at a
// time: well within a core's L1 data cache (32 kB or more).
const l1Bytes = 16 << 10

// mulInput sets out[r] for r in [r0, r1) from input t of v. The groups
// of 4 rows wholly in the range go straight to out; a group cut by r0 or
// r1 is computed whole and the rows wanted copied, so that each row is
// summed the same way whatever the range.
func (m *q32Matrix) mulInput(out []float32, v *Vec, t, r0, r1 int) {
	g0, g1 := (r0+3)/4, r1/4 // the whole groups
	for g := r0 / 4; g < (r1+3)/4; {
		if g0 <= g && g < g1 {
			m.groupRun(v, t, g, g1-g, out[4*g:4*g1])
			g = g1
			continue
		}
		var scratch [4]float32
		m.groupRun(v, t, g, 1, scratch[:])
		lo, hi := max(r0, 4*g), min(r1, 4*g+4)
		copy(out[lo:hi], scratch[lo-4*g:hi-4*g])
		g++
	}
}

// groupRun sets dst to the products of the n groups of 4 rows from g with
// input t of v, with the fastest kernel this CPU runs (q32_amd64.s), or
// in plain Go.
func (m *q32Matrix) groupRun(v *Vec, t, g, n int, dst []float32) {
	np := m.pairs
	if !useAVX2 {
		for i := range n {
			m.groupGo(g+i, v, t, (*[4]float32)(dst[4*i:]))
		}
		return
	}
	w, x, d, s, sum, o := &m.w[g*np*m.pairBytes], &v.q[t*64*np], &v.d[t*8*np], &v.s[t*8*np], &v.sum[t*8*np], &dst[0]
	switch {
	case m.typ == gguf.Q4_0 && useVNNI:
		q40VecVNNI(n, np, w, x, d, s, sum, o)
	case m.typ == gguf.Q4_0:
		q40VecAVX2(n, np, w, x, d, s, sum, o)
	case m.typ == gguf.Q4_1 && useVNNI:
		q41VecVNNI(n, np, w, x, d, s, sum, o)
	case m.typ == gguf.Q4_1:
		q41VecAVX2(n, np, w, x, d, s, sum, o)
	case useVNNI:
		q80VecVNNI(n, np, w, x, d, s, sum, o)
	default:
		q80VecAVX2(n, np, w, x, d, s, sum, o)
	}
}

// mulFour sets out[t·rows + r] for inputs t to t+3 of v and r in [r0,
// r1), as mulInput does for one, with the VNNI kernels for four inputs
// (q32batch_amd64.s), which have the registers to hold 16 sums.
func (m *q32Matrix) mulFour(out []float32, v *Vec, t, r0, r1 int) {
	np := m.pairs
	x, d, s, sum := &v.q[t*64*np], &v.d[t*8*np], &v.s[t*8*np], &v.sum[t*8*np]
	run := func(g, n int, o *float32, ldo int) {
		w := &m.w[g*np*m.pairBytes]
		switch m.typ {
		case gguf.Q4_0:
			q40BatchVNNI(n, np, w, x, d, s, sum, np, o, ldo)
		case gguf.Q4_1:
			q41BatchVNNI(n, np, w, x, d, s, sum, np, o, ldo)
		default:
			q80BatchVNNI(n, np, w, x, d, s, sum, np, o, ldo)
		}
	}
	g0, g1 := (r0+3)/4, r1/4
	for g := r0 / 4; g < (r1+3)/4; {
		if g0 <= g && g < g1 {
			run(g, g1-g, &out[t*m.rows+4*g], m.rows)
			g = g1
			continue
		}
		var scratch [4 * 4]float32
		run(g, 1, &scratch[0], 4)
		lo, hi := max(r0, 4*g), min(r1, 4*g+4)
		for i := range 4 {
			copy(out[(t+i)*m.rows+lo:(t+i)*m.rows+hi], scratch[4*i+lo-4*g:4*i+hi-4*g])
		}
		g++
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
