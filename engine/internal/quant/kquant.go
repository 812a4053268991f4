package quant

import "github.com/tokenbytoken/course/engine/gguf"

// Q4_K, Q5_K and Q6_K matrices, kept as GGUF stores them. A super-block
// of 256 numbers is 144 to 210 bytes, long enough to stream well as it
// is. The products take inputs quantized in blocks of 256 (kindQ8K) and
// do the sub-blocks' scales in integers, as llama.cpp does: for Q4_K,
//
//	row·x ≈ Σ_super-blocks dx·(d·Σ_j scale_j·Σ_i q_i·x_i − dmin·Σ_j min_j·Σ_i x_i)
//
// with the quants q and x and the 6-bit scale_j and min_j integers, so
// each super-block costs two float multiplications.

// kMatrix is a Q4_K, Q5_K or Q6_K matrix as GGUF stores it.
type kMatrix struct {
	typ        gguf.Type
	rows, cols int
	rowBytes   int
	w          []byte
}

func (m *kMatrix) row(i int, dst []float32) {
	dequantizers[m.typ](dst, m.w[i*m.rowBytes:(i+1)*m.rowBytes])
}

func (m *kMatrix) bytes() int64 { return int64(len(m.w)) }

func (m *kMatrix) kind() vecKind { return kindQ8K }

func (m *kMatrix) inputs() int { return 1 }

func (m *kMatrix) mulVec(out []float32, v *Vec, r0, r1 int) {
	m.mulBatch(out, v, 0, 1, r0, r1)
}

func (m *kMatrix) mulBatch(out []float32, v *Vec, t0, t1, r0, r1 int) {
	ns := m.cols / 256
	if useAVX2 {
		kern, sums := q4kVecAVX2, v.xs
		switch m.typ {
		case gguf.Q4_K:
			if useVNNI {
				kern = q4kVecVNNI
			}
		case gguf.Q5_K:
			kern = q5kVecAVX2
			if useVNNI {
				kern = q5kVecVNNI
			}
		case gguf.Q6_K:
			kern, sums = q6kVecAVX2, v.bsum
			if useVNNI {
				kern = q6kVecVNNI
			}
		}
		per := len(sums) / v.n // sums an input
		// Chunks of rows that stay in the L1 cache for all the inputs.
		chunk := max(1, l1Bytes/m.rowBytes)
		for c0 := r0; c0 < r1; c0 += chunk {
			c1 := min(r1, c0+chunk)
			for t := t0; t < t1; t++ {
				kern(c1-c0, ns, &m.w[c0*m.rowBytes], &v.q[t*m.cols], &v.d[t*ns], &sums[t*per], &out[t*m.rows+c0])
			}
		}
		return
	}
	dot := kDots[m.typ]
	for t := t0; t < t1; t++ {
		q, d, bsum := v.q[t*m.cols:(t+1)*m.cols], v.d[t*ns:(t+1)*ns], v.bsum[t*16*ns:(t+1)*16*ns]
		for r := r0; r < r1; r++ {
			out[t*m.rows+r] = dot(m.w[r*m.rowBytes:(r+1)*m.rowBytes], q, d, bsum)
		}
	}
}

// kDots holds each type's product of one row (its super-blocks w) with
// one input (quants q, scales d, sums of 16 bsum), in plain Go.
var kDots = map[gguf.Type]func(w []byte, q []int8, d []float32, bsum []int16) float32{
	gguf.Q4_K: dotQ4_KGo,
	gguf.Q5_K: dotQ5_KGo,
	gguf.Q6_K: dotQ6_KGo,
}

func dotQ4_KGo(w []byte, q []int8, d []float32, bsum []int16) float32 {
	var acc float32
	for j := range d {
		blk, x := w[144*j:144*j+144], q[256*j:256*j+256]
		qs := blk[16:]
		var isum, msum int32
		for k := range 8 {
			sc, mn := scaleMinK4(k, blk[4:16])
			shift := 4 * uint(k%2)
			var dot int32
			for i := range 32 {
				dot += int32(qs[32*(k/2)+i]>>shift&0xf) * int32(x[32*k+i])
			}
			isum += int32(sc) * dot
			msum += int32(mn) * int32(bsum[16*j+2*k]+bsum[16*j+2*k+1])
		}
		acc += d[j] * (f16At(blk)*float32(isum) - f16At(blk[2:])*float32(msum))
	}
	return acc
}

func dotQ5_KGo(w []byte, q []int8, d []float32, bsum []int16) float32 {
	var acc float32
	for j := range d {
		blk, x := w[176*j:176*j+176], q[256*j:256*j+256]
		qh, qs := blk[16:48], blk[48:]
		var isum, msum int32
		for k := range 8 {
			sc, mn := scaleMinK4(k, blk[4:16])
			shift := 4 * uint(k%2)
			var dot int32
			for i := range 32 {
				c := qs[32*(k/2)+i]>>shift&0xf | (qh[i]>>uint(k)&1)<<4
				dot += int32(c) * int32(x[32*k+i])
			}
			isum += int32(sc) * dot
			msum += int32(mn) * int32(bsum[16*j+2*k]+bsum[16*j+2*k+1])
		}
		acc += d[j] * (f16At(blk)*float32(isum) - f16At(blk[2:])*float32(msum))
	}
	return acc
}

func dotQ6_KGo(w []byte, q []int8, d []float32, bsum []int16) float32 {
	var acc float32
	for j := range d {
		blk, x := w[210*j:210*j+210], q[256*j:256*j+256]
		var isum int32
		for k := range 16 { // sub-blocks of 16
			var dot int32
			for i := 16 * k; i < 16*k+16; i++ {
				h, r := i/128, i%128
				lo := blk[64*h+r%64] >> (4 * uint(r/64)) & 0xf
				hi := blk[128+32*h+r%32] >> (2 * uint(r/32)) & 3
				dot += (int32(lo|hi<<4) - 32) * int32(x[i])
			}
			isum += int32(int8(blk[192+k])) * dot
		}
		acc += d[j] * f16At(blk[208:]) * float32(isum)
	}
	return acc
}
