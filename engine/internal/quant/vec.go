package quant

import (
	"math"

	half "github.com/tokenbytoken/course/engine/internal/f16"
)

// Vec is one or more input vectors prepared for a matrix's products
// (Matrix.Prepare, Matrix.PrepareBatch). For the quantized types the
// inputs are quantized to 8 bits exactly as llama.cpp's CPU backend
// quantizes them, so that the products see the numbers llama.cpp's do:
// Q4_0, Q4_1 and Q8_0 matrices take inputs in blocks of 32 with a scale
// each, rounded to f16, and the sum of their quants times the scale,
// rounded to f16 too (llama.cpp's Q8_0 and Q8_1); the K-quants blocks of
// 256 with a float32 scale and the sums of every 16 (llama.cpp's Q8_K).
// The zero Vec is ready to use; its buffers grow to the largest input it
// has held and are reused. Prepare writes a Vec; the products only read
// it, so goroutines that share a product share its Vec.
type Vec struct {
	kind    vecKind
	n, cols int // inputs, numbers each

	// kindFloat: the inputs themselves, n × cols.
	x []float32

	// kindQ8x32: for each input, its blocks of 32 in pairs (a last odd
	// block is paired with a block of zeros). Pair p of an input holds
	//	q[64p:64p+64]   the quants of the pair's first block (b0), then
	//	                of its second (b1), in order
	//	d[8p:8p+8]      the scales, b0's four times then b1's
	//	s[8p:8p+8]      the scale times the sum of the quants (before the
	//	                scale is rounded), the same way
	//	sum[16p:16p+16] sums of the quants 4 by 4: sum[16p+k] = Σ_{i<4}
	//	                b0[4k+i] for k < 8, and the same of b1 for 8+k
	// These are what the kernels' vector registers hold (see q32.go).
	// Input t's are at t times an input's length.
	q   []int8
	d   []float32
	s   []float32
	sum []int32

	// kindQ8x32, for the kernels of eight inputs (q32eight_amd64.s): the
	// first octets×8 inputs again, eight at a time, each pair of blocks
	// of an octet's inputs in one place. Pair p of octet o, at j = o·pairs
	// + p, holds, for its input t (0 to 7) and block h (0 or 1):
	//	q8[512j+64t+32h:][:32]   the block's quants
	//	d8[16j+2t+h]             its scale
	//	s4[64j+32(t/4)+16h:][:16] for the four inputs t/4·4 to t/4·4+3,
	//	                         each one's scaled sum four times
	//	b3[128j+16t+8h:][:8]     −8 and −128 times its sums of 4 quants
	//	b7[128j+16t+8h:][:8]     (the biases of Q4_0 and Q8_0's quants)
	octets int
	q8     []int8
	d8     []float32
	s4     []float32
	b3, b7 []int32

	// kindQ8K: for each input, its super-blocks of 256 in order: quants
	// in q[256j:256j+256], the scale in d[j], the sums of every 16
	// quants in bsum[16j:16j+16] and of every 32 in xs[8j:8j+8].
	bsum []int16
	xs   []int16
}

// vecKind is a way of preparing inputs.
type vecKind uint8

const (
	kindFloat vecKind = iota + 1 // float32, as given (F32, F16, BF16)
	kindQ8x32                    // 8-bit blocks of 32 (Q4_0, Q4_1, Q8_0)
	kindQ8K                      // 8-bit blocks of 256 (Q4_K, Q5_K, Q6_K)
)

func (k vecKind) String() string {
	switch k {
	case kindFloat:
		return "float32"
	case kindQ8x32:
		return "8-bit (blocks of 32)"
	case kindQ8K:
		return "8-bit (blocks of 256)"
	}
	return "no"
}

// prepare makes v hold the n inputs of cols numbers in x, prepared as
// kind wants them.
func (v *Vec) prepare(kind vecKind, x []float32, n, cols int) {
	v.kind, v.n, v.cols = kind, n, cols
	switch kind {
	case kindFloat:
		v.x = x
	case kindQ8x32:
		v.x = nil
		v.quantize32(x, n, cols)
		v.octets = 0
		if useVNNI && n >= 8 {
			v.gatherOctets(n/8, pairs(cols))
		}
	case kindQ8K:
		v.x = nil
		v.quantizeK(x, n, cols)
	}
}

// grow returns s with length n, reusing its array if it is large enough.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// quantize8 sets q to x's numbers as multiples of amax/127, amax being
// their largest magnitude, which it returns: q[i] = x[i]·(127/amax), both
// products rounded to float32, then to the nearest integer, ties to even.
// That is how llama.cpp's AVX2 code quantizes (its plain C rounds ties
// away from zero, and divides by amax/127 instead). A block whose largest
// magnitude is below 2⁻¹⁰⁰ is all zeros and gives amax 0, as llama.cpp's
// gives scales of 0 for it; one with a NaN or an infinity is all zeros and
// gives a NaN or an infinity, which makes every product with it NaN. The
// kernels of vec_amd64.s do the same operations and give the same bits.
func quantize8(q []int8, x []float32) (amax float32) {
	// The largest magnitude, compared as bits: for numbers of one sign
	// the order of the bits is the order of the numbers, and NaNs and
	// infinities are above every finite number.
	var m uint32
	for _, v := range x {
		m = max(m, math.Float32bits(v)&^(1<<31))
	}
	amax = math.Float32frombits(m)
	if m < tinyBits || m >= infBits {
		clear(q)
		if m < tinyBits {
			return 0
		}
		return amax
	}
	id := 127 / amax
	for i, v := range x {
		f := v * id // at most 127 (and a rounding) in size
		q[i] = int8(math.RoundToEven(float64(f)))
	}
	return amax
}

// scale32 is the scale of a block of 32 quantized by quantize8 with
// largest magnitude amax, as llama.cpp's Q8_0 and Q8_1 blocks store it:
// amax/127 rounded to f16. scaledSum is llama.cpp's Q8_1 sum, the
// float32 amax/127 times the sum of the quants, rounded to f16.
func scale32(amax float32, sum int32) (d, scaledSum float32) {
	d32 := amax / 127
	return half.Round(d32), half.Round(d32 * float32(sum))
}

// scaleK is the scale of a block of 256 quantized by quantize8 with
// largest magnitude amax, as llama.cpp's Q8_K blocks store it: the
// float32 inverse of the multiplier 127/amax (0 for amax 0).
func scaleK(amax float32) float32 {
	if amax == 0 {
		return 0
	}
	return 1 / (127 / amax)
}

const (
	tinyBits = 0x0d800000 // 2⁻¹⁰⁰ as float32 bits
	infBits  = 0x7f800000 // +Inf
)

// pairs is the number of pairs of blocks of 32 in cols numbers.
func pairs(cols int) int { return (cols/32 + 1) / 2 }

// quantize32 prepares n inputs of cols numbers for kindQ8x32.
func (v *Vec) quantize32(x []float32, n, cols int) {
	nb, np := cols/32, pairs(cols)
	v.q = grow(v.q, n*64*np)
	// The kernels read the scales of the pair after the one at hand:
	// room for one more after the last input's last.
	v.d = grow(v.d, n*8*np+8)
	v.s = grow(v.s, n*8*np)
	v.sum = grow(v.sum, n*16*np)
	for t := range n {
		q, d, s, sum := v.q[t*64*np:], v.d[t*8*np:], v.s[t*8*np:], v.sum[t*16*np:]
		p0 := 0 // the pairs left to do in Go
		if useAVX2 && nb >= 2 {
			p0 = nb / 2
			quantPairsAVX2(p0, &x[t*cols], &q[0], &d[0], &s[0], &sum[0])
		}
		for p := p0; p < np; p++ {
			for h := range 2 {
				blk := q[64*p+32*h : 64*p+32*h+32]
				var amax float32
				if b := 2*p + h; b < nb {
					amax = quantize8(blk, x[t*cols+32*b:t*cols+32*b+32])
				} else {
					clear(blk)
				}
				var total int32
				for k := range 8 {
					var l int32
					for _, c := range blk[4*k : 4*k+4] {
						l += int32(c)
					}
					sum[16*p+8*h+k] = l
					total += l
				}
				db, sb := scale32(amax, total)
				for k := range 4 {
					d[8*p+4*h+k] = db
					s[8*p+4*h+k] = sb
				}
			}
		}
	}
}

// gatherOctets lays out the first 8·octets inputs eight at a time for the
// kernels of eight inputs (see Vec), from the quantized inputs of np pairs
// of blocks each.
func (v *Vec) gatherOctets(octets, np int) {
	v.octets = octets
	j := octets * np
	v.q8 = grow(v.q8, 512*j)
	v.d8 = grow(v.d8, 16*j)
	v.s4 = grow(v.s4, 64*j)
	v.b3 = grow(v.b3, 128*j)
	v.b7 = grow(v.b7, 128*j)
	for o := range octets {
		for p := range np {
			j := o*np + p
			for t := range 8 {
				in := 8*o + t
				copy(v.q8[512*j+64*t:512*j+64*t+64], v.q[(in*np+p)*64:])
				for h := range 2 {
					v.d8[16*j+2*t+h] = v.d[(in*np+p)*8+4*h]
					s := v.s[(in*np+p)*8+4*h]
					at := 64*j + 32*(t/4) + 16*h + 4*(t%4)
					for i := range 4 {
						v.s4[at+i] = s
					}
					for k := range 8 {
						sum := v.sum[(in*np+p)*16+8*h+k]
						v.b3[128*j+16*t+8*h+k] = -sum << 3
						v.b7[128*j+16*t+8*h+k] = -sum << 7
					}
				}
			}
		}
	}
}

// quantizeK prepares n inputs of cols numbers (a multiple of 256) for
// kindQ8K.
func (v *Vec) quantizeK(x []float32, n, cols int) {
	ns := cols / 256
	v.q = grow(v.q, n*cols)
	v.d = grow(v.d, n*ns)
	v.bsum = grow(v.bsum, n*16*ns)
	v.xs = grow(v.xs, n*8*ns)
	if useAVX2 {
		quantSupersAVX2(n*ns, &x[0], &v.q[0], &v.d[0], &v.bsum[0])
	}
	for j := range n * ns {
		if !useAVX2 {
			q := v.q[256*j : 256*j+256]
			v.d[j] = scaleK(quantize8(q, x[256*j:256*j+256]))
			for k := range 16 {
				var s int16
				for _, c := range q[16*k : 16*k+16] {
					s += int16(c)
				}
				v.bsum[16*j+k] = s
			}
		}
		for k := range 8 {
			v.xs[8*j+k] = v.bsum[16*j+2*k] + v.bsum[16*j+2*k+1]
		}
	}
}
