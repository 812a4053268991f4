package quant

import (
	"encoding/binary"
	"unsafe"

	"github.com/tokenbytoken/course/engine/gguf"
	"github.com/tokenbytoken/course/engine/internal/ggml"
)

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
//	             Q4_0, Q4_1: 32 bytes, byte k holding number k of the
//	             first block in its low nibble and of the second in its
//	             high nibble
//	             Q8_0: the first block's 32 bytes, then the second's
//
// which takes exactly the bytes of the 8 blocks as stored. A group is
// then one run through memory, and the scales of 4 rows and 2 blocks are
// one vector load; in a 32-byte register, the low nibbles of a 4-bit
// row's pair are the first block's numbers in order and the high ones
// the second's, as the input's quants are laid out (Vec).
//
// The products compute exactly what llama.cpp's AVX2 dot products compute
// (ggml_vec_dot_q4_1_q8_1, ggml_vec_dot_q4_0_q8_0, ggml_vec_dot_q8_0_q8_0),
// which it multiplies Q4_1 and Q8_0 weights with on x86-64, so that a
// model's logits are llama.cpp's to the last bit (Q4_0 weights it repacks
// for other kernels on processors with AVX2, whose sums go in another
// order): for each block, the 8 integer sums of 4
// consecutive numbers' products, each converted to float32 and added to
// its own accumulator by a fused multiply-add with the product of the two
// scales, d_w·d_x, rounded; at the end of the row, the 8 accumulators a
// added as ((a0+a4)+(a2+a6))+((a1+a5)+(a3+a7)); for Q4_1, plus the
// minimums times the input's scaled sums, m·s, summed block after block
// by fused multiply-adds.

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
	// The kernels read the scales of the pair after the one at hand,
	// so there is room for one more pair after the last (zeros).
	m.w = make([]byte, (m.groups*m.pairs+1)*m.pairBytes)
	bb := t.BlockBytes()
	rowBytes := cols / 32 * bb
	nb := cols / 32
	var zero [34]byte
	for r := range rows {
		row := data[r*rowBytes : (r+1)*rowBytes]
		for b := 0; b < nb; b += 2 {
			second := zero[:bb]
			if b+1 < nb {
				second = row[(b+1)*bb : (b+2)*bb]
			}
			m.putPair(r, b/2, row[b*bb:(b+1)*bb], second)
		}
	}
	return m
}

// putPair stores the blocks 2p and 2p+1 of row r, b0 and b1, given as
// GGUF stores them. The 4-bit quants of the two blocks go into one byte
// each: byte k of the row's 32 holds number k of b0 in its low nibble
// and of b1 in its high one, 8 bytes at a time.
func (m *q32Matrix) putPair(r, p int, b0, b1 []byte) {
	for h, blk := range [2][]byte{b0, b1} {
		d, mn, _, _ := m.offsets(r, 2*p+h)
		copy(m.w[d:d+2], blk[0:2])
		if m.typ == gguf.Q4_1 {
			copy(m.w[mn:mn+2], blk[2:4])
		}
	}
	_, _, q, _ := m.offsets(r, 2*p)
	switch m.typ {
	case gguf.Q4_0, gguf.Q4_1:
		off := 2
		if m.typ == gguf.Q4_1 {
			off = 4
		}
		q0, q1 := b0[off:off+16], b1[off:off+16]
		const lo = 0x0f0f0f0f0f0f0f0f
		for k := 0; k < 16; k += 8 {
			a, b := binary.LittleEndian.Uint64(q0[k:]), binary.LittleEndian.Uint64(q1[k:])
			binary.LittleEndian.PutUint64(m.w[q+k:], a&lo|b<<4&^lo)    // numbers k..k+7
			binary.LittleEndian.PutUint64(m.w[q+16+k:], a>>4&lo|b&^lo) // numbers 16+k..
		}
	case gguf.Q8_0:
		copy(m.w[q:q+32], b0[2:34])
		copy(m.w[q+32:q+64], b1[2:34])
	}
}

// offsets returns where block b of row r is: its scale, its minimum
// (Q4_1), and its row's 32 (Q4_0, Q4_1) or 64 (Q8_0) bytes of quants in
// the pair, with h which of the pair's two blocks it is.
func (m *q32Matrix) offsets(r, b int) (d, mn, q, h int) {
	g, i := r/4, r%4
	p, h := b/2, b%2
	base := (g*m.pairs + p) * m.pairBytes
	d = base + 2*(4*h+i)
	if m.typ == gguf.Q8_0 {
		return d, -1, base + m.scaleBytes + 64*i, h
	}
	return d, d + 16, base + m.scaleBytes + 32*i, h
}

// getBlock sets blk to block b of row r as GGUF stores it.
func (m *q32Matrix) getBlock(r, b int, blk []byte) {
	d, mn, q, h := m.offsets(r, b)
	copy(blk[0:2], m.w[d:d+2])
	switch m.typ {
	case gguf.Q4_0, gguf.Q4_1:
		qs := blk[2:18]
		if m.typ == gguf.Q4_1 {
			copy(blk[2:4], m.w[mn:mn+2])
			qs = blk[4:20]
		}
		clear(qs)
		for k := range 32 {
			code := m.w[q+k] >> (4 * uint(h)) & 0xf
			qs[k%16] |= code << (4 * uint(k/16))
		}
	case gguf.Q8_0:
		copy(blk[2:34], m.w[q+32*h:q+32*h+32])
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

// bytes leaves out the room after the last pair (see newQ32).
func (m *q32Matrix) bytes() int64 { return int64(m.groups * m.pairs * m.pairBytes) }

func (m *q32Matrix) kind() vecKind { return kindQ8x32 }

// inputs: the kernels of q32eight_amd64.s take eight inputs (see
// mulBatch).
func (m *q32Matrix) inputs() int {
	if useVNNI {
		return 8
	}
	return 1
}

func (m *q32Matrix) mulVec(out []float32, v *Vec, r0, r1 int) {
	m.mulInput(out, v, 0, r0, r1)
}

func (m *q32Matrix) mulBatch(out []float32, v *Vec, t0, t1, r0, r1 int) {
	// The rows go in chunks whose weights stay in the L1 cache while
	// every input passes over them: eight at a time where the Vec has
	// them laid out for the kernel of eight, then four at a time where
	// there is a kernel for four, then one at a time.
	chunk := 4 * max(1, l1Bytes/(m.pairs*m.pairBytes))
	for c0 := r0; c0 < r1; {
		c1 := min(r1, c0/chunk*chunk+chunk)
		for t := t0; t < t1; {
			switch {
			case t%8 == 0 && t+8 <= t1 && t/8 < v.octets:
				m.mulEight(out, v, t, c0, c1)
				t += 8
			case useVNNI && t+4 <= t1:
				m.mulFour(out, v, t, c0, c1)
				t += 4
			default:
				m.mulInput(out[t*m.rows:(t+1)*m.rows], v, t, c0, c1)
				t++
			}
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
	w, x, d, s, sum, o := &m.w[g*np*m.pairBytes], &v.q[t*64*np], &v.d[t*8*np], &v.s[t*8*np], &v.sum[t*16*np], &dst[0]
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
	x, d, s, sum := &v.q[t*64*np], &v.d[t*8*np], &v.s[t*8*np], &v.sum[t*16*np]
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

// mulEight sets out[t·rows + r] for inputs t to t+7 of v, an octet laid
// out by gatherOctets (t a multiple of 8), and r in [r0, r1), as mulFour
// does for four, with the kernels of q32eight_amd64.s.
func (m *q32Matrix) mulEight(out []float32, v *Vec, t, r0, r1 int) {
	np := m.pairs
	j := t / 8 * np // the octet's first pair
	x, d := &v.q8[512*j], &v.d8[16*j]
	run := func(g, n int, o *float32, ldo int) {
		w := &m.w[g*np*m.pairBytes]
		switch m.typ {
		case gguf.Q4_0:
			q40EightVNNI(n, np, w, x, d, (*byte)(unsafe.Pointer(&v.b3[128*j])), o, ldo)
		case gguf.Q4_1:
			q41EightVNNI(n, np, w, x, d, (*byte)(unsafe.Pointer(&v.s4[64*j])), o, ldo)
		default:
			q80EightVNNI(n, np, w, x, d, (*byte)(unsafe.Pointer(&v.b7[128*j])), o, ldo)
		}
	}
	g0, g1 := (r0+3)/4, r1/4
	for g := r0 / 4; g < (r1+3)/4; {
		if g0 <= g && g < g1 {
			run(g, g1-g, &out[t*m.rows+4*g], m.rows)
			g = g1
			continue
		}
		var scratch [8 * 4]float32
		run(g, 1, &scratch[0], 4)
		lo, hi := max(r0, 4*g), min(r1, 4*g+4)
		for i := range 8 {
			copy(out[(t+i)*m.rows+lo:(t+i)*m.rows+hi], scratch[4*i+lo-4*g:4*i+hi-4*g])
		}
		g++
	}
}

// groupGo sets sums to the products of the 4 rows of group g with input t
// of v, in plain Go, with llama.cpp's operations (see above).
func (m *q32Matrix) groupGo(g int, v *Vec, t int, sums *[4]float32) {
	np := m.pairs
	q, d, s := v.q[t*64*np:(t+1)*64*np], v.d[t*8*np:], v.s[t*8*np:]
	var acc [4][8]float32
	var mins [4]float32
	for p := range np {
		pair := m.w[(g*np+p)*m.pairBytes : (g*np+p+1)*m.pairBytes]
		quants := pair[m.scaleBytes:]
		for h := range 2 {
			x := q[64*p+32*h : 64*p+32*h+32] // the input block's quants
			dx := d[8*p+4*h]                 // its scale
			sx := s[8*p+4*h]                 // its scale times the sum of its quants
			for i := range 4 {
				scale := f16At(pair[2*(4*h+i):]) * dx
				if m.typ == gguf.Q4_1 {
					mins[i] = ggml.FMA32(f16At(pair[16+2*(4*h+i):]), sx, mins[i])
				}
				for j := range 8 {
					var dot int32
					for k := 4 * j; k < 4*j+4; k++ {
						var w int32
						switch m.typ {
						case gguf.Q4_0:
							w = int32(quants[32*i+k]>>(4*uint(h))&0xf) - 8
						case gguf.Q4_1:
							w = int32(quants[32*i+k] >> (4 * uint(h)) & 0xf)
						case gguf.Q8_0:
							w = int32(int8(quants[64*i+32*h+k]))
						}
						dot += w * int32(x[k])
					}
					acc[i][j] = ggml.FMA32(scale, float32(dot), acc[i][j])
				}
			}
		}
	}
	for i := range 4 {
		a := &acc[i]
		sums[i] = ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]))
		if m.typ == gguf.Q4_1 {
			sums[i] += mins[i]
		}
	}
}
