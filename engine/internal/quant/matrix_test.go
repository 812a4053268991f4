package quant

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"

	"github.com/tokenbytoken/course/engine/gguf"
)

// paths are the ways the products can be computed: plain Go, and the
// kernels this CPU runs.
func paths(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, p := range []struct {
		name       string
		avx2, vnni bool
	}{{"go", false, false}, {"avx2", true, false}, {"vnni", true, true}} {
		if p.avx2 && !hasAVX2 || p.vnni && !hasVNNI {
			if os.Getenv("CI") != "" && runtime.GOARCH == "amd64" {
				t.Errorf("this CPU cannot run the %s kernels, so they are not tested here", p.name)
			}
			continue
		}
		t.Run(p.name, func(t *testing.T) {
			defer func(a, v bool) { useAVX2, useVNNI = a, v }(useAVX2, useVNNI)
			useAVX2, useVNNI = p.avx2, p.vnni
			f(t)
		})
	}
}

// types are the types the package computes with.
var types = []gguf.Type{gguf.F32, gguf.F16, gguf.BF16, gguf.Q8_0, gguf.Q4_0, gguf.Q4_1, gguf.Q4_K, gguf.Q5_K, gguf.Q6_K}

// f16Bits is the f16 nearest to v for v in the normal range of f16; it
// makes numbers too small for that range zeros.
func f16Bits(v float64) uint16 {
	if math.Abs(v) < 0x1p-14 {
		return 0
	}
	var sign uint16
	if v < 0 {
		sign, v = 0x8000, -v
	}
	frac, exp := math.Frexp(v) // v = frac·2^exp, frac in [0.5, 1)
	m := uint16(math.RoundToEven((frac*2 - 1) * 1024))
	e := uint16(exp - 1 + 15)
	if m == 1024 {
		m, e = 0, e+1
	}
	return sign | e<<10 | m
}

// randomWeights returns rows × cols numbers of type t as a GGUF file
// stores them: random quants and scales of the size real models have
// (finite, some negative), or random numbers for the float types.
func randomWeights(rng *rand.Rand, t gguf.Type, rows, cols int) []byte {
	n := rows * cols / t.BlockSize()
	bb := t.BlockBytes()
	data := make([]byte, n*bb)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	put := func(b []byte, v float64) {
		h := f16Bits(v)
		b[0], b[1] = byte(h), byte(h>>8)
	}
	scale := func() float64 { return 0.002 + 0.02*rng.Float64() }
	for i := range n {
		b := data[i*bb : (i+1)*bb]
		switch t {
		case gguf.F32:
			bits := math.Float32bits(float32(rng.NormFloat64()))
			b[0], b[1], b[2], b[3] = byte(bits), byte(bits>>8), byte(bits>>16), byte(bits>>24)
		case gguf.F16:
			put(b, rng.NormFloat64())
		case gguf.BF16:
			bits := math.Float32bits(float32(rng.NormFloat64()))
			b[0], b[1] = byte(bits>>16), byte(bits>>24)
		case gguf.Q8_0, gguf.Q4_0:
			put(b, scale())
		case gguf.Q4_1:
			d := scale()
			put(b, d)
			put(b[2:], -8*d+d*rng.NormFloat64())
		case gguf.Q4_K, gguf.Q5_K:
			put(b, scale()/16)
			put(b[2:], scale()/16)
		case gguf.Q6_K:
			put(b[208:], scale()/64)
		}
	}
	return data
}

// randomInput returns n numbers, normal with a few large ones, as the
// inputs of a model's matrices are.
func randomInput(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
		if rng.IntN(50) == 0 {
			x[i] *= 20
		}
	}
	return x
}

// shapes are (rows, cols) with every kind of edge: one block and many,
// odd numbers of blocks, rows not a multiple of 4.
func shapes(t gguf.Type) [][2]int {
	bs := max(t.BlockSize(), 32)
	s := [][2]int{
		{1, bs}, {3, bs}, {4, bs}, {5, 2 * bs}, {7, 3 * bs}, {8, 5 * bs},
		{13, 9 * bs}, {64, 2 * bs}, {66, 18 * bs},
	}
	if t.BlockSize() == 1 { // rows of any length: every remainder mod 8 and 32
		s = append(s, [][2]int{{1, 1}, {3, 7}, {5, 9}, {2, 31}, {6, 45}, {9, 71}}...)
	}
	return s
}

// mustMatrix makes a matrix or fails the test.
func mustMatrix(t testing.TB, typ gguf.Type, rows, cols int, data []byte) *Matrix {
	t.Helper()
	m, err := NewMatrix(typ, rows, cols, data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRowMatchesDequantize checks that Row and Dequantize give, bit for
// bit, what the reference loop gives for the data as stored, whatever
// layout the matrix keeps it in.
func TestRowMatchesDequantize(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, typ := range types {
		for _, s := range shapes(typ) {
			rows, cols := s[0], s[1]
			data := randomWeights(rng, typ, rows, cols)
			want := make([]float32, rows*cols)
			if err := Dequantize(typ, want, data); err != nil {
				t.Fatal(err)
			}
			m := mustMatrix(t, typ, rows, cols, data)
			all := make([]float32, rows*cols)
			m.Dequantize(all)
			row := make([]float32, cols)
			for i := range rows {
				m.Row(i, row)
				for j := range cols {
					w := want[i*cols+j]
					if !sameNumber(row[j], w) || !sameNumber(all[i*cols+j], w) {
						t.Fatalf("%v %d×%d: row %d number %d: Row %g, Dequantize %g, reference %g",
							typ, rows, cols, i, j, row[j], all[i*cols+j], w)
					}
				}
			}
		}
	}
}

// u is float32's unit roundoff.
const u = 0x1p-24

// exactProduct returns row·x in float64 over the numbers the weights
// stand for (dequantized) and the input as given, with Σ|w·x|.
func exactProduct(w, x []float32) (sum, mag float64) {
	for j := range w {
		p := float64(w[j]) * float64(x[j])
		sum += p
		mag += math.Abs(p)
	}
	return sum, mag
}

// quantError bounds how far the product with the quantized input can be
// from the product with x: each number of a block moves by at most half
// the block's scale, max|x|/127, plus what rounding that scale to f16
// moves it (blocks of 32: half a unit in the last place of the f16, at
// least 2⁻²⁵ where it is subnormal), and the dequantized weights are the
// exact ones (d·q + m, say) rounded to float32. mins are a Q4_1 row's
// minimums, one a block (nil for other types): each multiplies the
// block's sum of x as llama.cpp's Q8_1 stores it, the scale times the sum
// of the quants rounded to f16, which the f16 roundings of the scale and
// of the sum move by at most 2·127·32 times the first.
func quantError(w, x []float32, block int, mins []float32) float64 {
	var e float64
	for b := 0; b < len(x); b += block {
		var amax, wsum, wx float64
		for j := b; j < b+block; j++ {
			amax = max(amax, math.Abs(float64(x[j])))
			wsum += math.Abs(float64(w[j]))
			wx += math.Abs(float64(w[j]) * float64(x[j]))
		}
		var ed float64 // how far the f16 scale can be from amax/127
		if block == 32 {
			ed = max(amax/127*0x1p-11, 0x1p-25)
		}
		e += (amax/127*0.5*(1+1e-6)+127*ed)*wsum + 2*u*(wx+amax/127*wsum)
		if mins != nil {
			e += math.Abs(float64(mins[b/block])) * 2 * 127 * 32 * ed
		}
	}
	return e
}

// rowMins returns the minimums of a Q4_1 row as GGUF stores it, one a
// block, or nil for other types.
func rowMins(typ gguf.Type, row []byte) []float32 {
	if typ != gguf.Q4_1 {
		return nil
	}
	var mins []float32
	for b := 0; b < len(row); b += typ.BlockBytes() {
		mins = append(mins, f16At(row[b+2:]))
	}
	return mins
}

// TestMulVecMatchesReferences checks MulVec for every type and shape
// against two references summed in float64: the products of the
// dequantized weights with x, and (quantized types) the integer form
// with the quants Prepare made of x. The first differs by the rounding
// of x to 8 bits, within quantError; the second only by float32's
// rounding as the kernels sum, within (terms+12)·u times the sizes of
// what they add (integerProduct).
func TestMulVecMatchesReferences(t *testing.T) {
	paths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		for _, typ := range types {
			for _, s := range shapes(typ) {
				rows, cols := s[0], s[1]
				t.Run(fmt.Sprintf("%v/%dx%d", typ, rows, cols), func(t *testing.T) {
					data := randomWeights(rng, typ, rows, cols)
					m := mustMatrix(t, typ, rows, cols, data)
					w := make([]float32, rows*cols)
					m.Dequantize(w)
					x := randomInput(rng, cols)
					var v Vec
					m.Prepare(x, &v)
					out := make([]float32, rows)
					for i := range out {
						out[i] = float32(math.NaN()) // must be overwritten
					}
					m.MulVec(out, &v, 0, rows)
					rowBytes, _ := typ.RowBytes(int64(cols))
					for r := range rows {
						want, mag := exactProduct(w[r*cols:(r+1)*cols], x)
						got := float64(out[r])
						if v.kind == kindFloat {
							if d := math.Abs(got - want); !(d <= float64(cols+4)*u*mag) {
								t.Fatalf("row %d: %g, float64 %g (difference %g, Σ|w·x| %g)", r, got, want, d, mag)
							}
							continue
						}
						ref, refMag, terms := integerProduct(typ, data[int64(r)*rowBytes:int64(r+1)*rowBytes], &v, 0)
						if d := math.Abs(got - ref); !(d <= float64(terms+12)*u*refMag) {
							t.Fatalf("row %d: %g, integer form in float64 %g (difference %g, size %g)", r, got, ref, d, refMag)
						}
						row := data[int64(r)*rowBytes : int64(r+1)*rowBytes]
						bound := quantError(w[r*cols:(r+1)*cols], x, v.block(), rowMins(typ, row))
						if d := math.Abs(ref - want); !(d <= bound) {
							t.Fatalf("row %d: integer form %g, float64 product %g: difference %g, more than %g", r, ref, want, d, bound)
						}
					}
				})
			}
		}
	})
}

// block is the block size of v's quantization.
func (v *Vec) block() int {
	if v.kind == kindQ8K {
		return 256
	}
	return 32
}

// inputBlock returns block b (of 32) of input t of a kindQ8x32 Vec: its
// quants, its scale and its scale times the sum of its quants.
func inputBlock(v *Vec, t, b int) (q [32]int8, d, s float32) {
	np := pairs(v.cols)
	p, h := b/2, b%2
	copy(q[:], v.q[t*64*np+64*p+32*h:])
	return q, v.d[t*8*np+8*p+4*h], v.s[t*8*np+8*p+4*h]
}

// integerProduct returns row·x_t for one row as GGUF stores it and input
// t of v, in float64 from the quants, the way the integer kernels sum it;
// with the number of float terms they add and a bound on the size of
// anything they add: the sum of the sizes of the products of single
// numbers (the kernels may split a block's sum in parts of either sign).
func integerProduct(typ gguf.Type, row []byte, v *Vec, t int) (sum, mag float64, terms int) {
	bb := typ.BlockBytes()
	abs := func(x int64) int64 { return max(x, -x) }
	for b := range len(row) / bb {
		blk := row[b*bb : (b+1)*bb]
		terms++
		switch typ {
		case gguf.Q8_0, gguf.Q4_0, gguf.Q4_1:
			x, dx, sx := inputBlock(v, t, b)
			var dot, size int64
			for i := range 32 {
				var q int64
				switch typ {
				case gguf.Q8_0:
					q = int64(int8(blk[2+i]))
				case gguf.Q4_0:
					q = int64(blk[2+i%16]>>(4*(i/16))&0xf) - 8
				case gguf.Q4_1:
					q = int64(blk[4+i%16] >> (4 * (i / 16)) & 0xf)
				}
				dot += q * int64(x[i])
				size += abs(q * int64(x[i]))
			}
			scale := float64(f16At(blk)) * float64(dx)
			sum += scale * float64(dot)
			mag += math.Abs(scale) * float64(size)
			if typ == gguf.Q4_1 {
				m := float64(f16At(blk[2:])) * float64(sx)
				sum += m
				mag += math.Abs(m)
			}
		case gguf.Q4_K, gguf.Q5_K:
			ns := v.cols / 256
			x, dx := v.q[t*v.cols+256*b:], float64(v.d[t*ns+b])
			var isum, msum, isize, msize int64
			for k := range 8 {
				sc, mn := scaleMinK4(k, blk[4:16])
				var dot, xs, size int64
				for i := range 32 {
					q := int64(blk[16+32*(k/2)+i] >> (4 * (k % 2)) & 0xf)
					if typ == gguf.Q5_K {
						q = int64(blk[48+32*(k/2)+i]>>(4*(k%2))&0xf) | int64(blk[16+i]>>k&1)<<4
					}
					dot += q * int64(x[32*k+i])
					size += abs(q * int64(x[32*k+i]))
					xs += int64(x[32*k+i])
				}
				isum += int64(sc) * dot
				isize += int64(sc) * size
				msum += int64(mn) * xs
				msize += abs(int64(mn) * xs)
			}
			d, dmin := dx*float64(f16At(blk)), dx*float64(f16At(blk[2:]))
			sum += d*float64(isum) - dmin*float64(msum)
			mag += math.Abs(d)*float64(isize) + math.Abs(dmin)*float64(msize)
		case gguf.Q6_K:
			ns := v.cols / 256
			x, dx := v.q[t*v.cols+256*b:], float64(v.d[t*ns+b])
			var isum, size int64
			for i := range 256 {
				h, r := i/128, i%128
				lo := blk[64*h+r%64] >> (4 * uint(r/64)) & 0xf
				hi := blk[128+32*h+r%32] >> (2 * uint(r/32)) & 3
				p := int64(int8(blk[192+i/16])) * (int64(lo|hi<<4) - 32) * int64(x[i])
				isum += p
				size += abs(p)
			}
			d := dx * float64(f16At(blk[208:]))
			sum += d * float64(isum)
			mag += math.Abs(d) * float64(size)
		}
	}
	return sum, mag, terms
}

// TestMulVecSameBitsOnAnyRows computes the product whole, then in ranges
// of rows cut anywhere, as cores would share it: every row must come out
// the same, bit for bit.
func TestMulVecSameBitsOnAnyRows(t *testing.T) {
	paths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, typ := range types {
			rows, cols := 23, 3*max(typ.BlockSize(), 32)
			m := mustMatrix(t, typ, rows, cols, randomWeights(rng, typ, rows, cols))
			var v Vec
			m.Prepare(randomInput(rng, cols), &v)
			whole := make([]float32, rows)
			m.MulVec(whole, &v, 0, rows)
			for _, step := range []int{1, 2, 3, 4, 5, 7, 8, 22} {
				for start := range min(step, 4) {
					// Ranges [0, start), then step rows at a time.
					bounds := []int{0}
					for r := start; r < rows; r += step {
						if r > 0 {
							bounds = append(bounds, r)
						}
					}
					bounds = append(bounds, rows)
					cut := make([]float32, rows)
					for i := range len(bounds) - 1 {
						m.MulVec(cut, &v, bounds[i], bounds[i+1])
					}
					for r := range rows {
						if math.Float32bits(cut[r]) != math.Float32bits(whole[r]) {
							t.Fatalf("%v, ranges of %d from %d: row %d is %g, whole %g", typ, step, start, r, cut[r], whole[r])
						}
					}
				}
			}
		}
	})
}

// TestMulBatchMatchesMulVec checks that each number of a batch product is,
// bit for bit, what MulVec gives for its input alone (F32 excepted: its
// batch product is simd.MulT, which sums in another order), and that
// sharing the batch by inputs or rows changes nothing. With 19 inputs,
// the quantized types' kernels of eight, four and one input all run.
func TestMulBatchMatchesMulVec(t *testing.T) {
	paths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 8))
		for _, typ := range types {
			bs := max(typ.BlockSize(), 32)
			for _, s := range [][2]int{{9, 3 * bs}, {16, 2 * bs}, {37, 5 * bs}} {
				rows, cols, n := s[0], s[1], 19
				m := mustMatrix(t, typ, rows, cols, randomWeights(rng, typ, rows, cols))
				x := randomInput(rng, n*cols)
				var batch Vec
				m.PrepareBatch(x, n, &batch)
				whole := make([]float32, n*rows)
				m.MulBatch(whole, &batch, 0, n, 0, rows)
				// By inputs, then by rows.
				byInputs, byRows := make([]float32, n*rows), make([]float32, n*rows)
				for _, c := range [][2]int{{0, 2}, {2, 3}, {3, 8}, {8, 16}, {16, 19}} {
					m.MulBatch(byInputs, &batch, c[0], c[1], 0, rows)
				}
				for _, c := range [][2]int{{0, 3}, {3, 4}, {4, 9}, {9, rows}} {
					m.MulBatch(byRows, &batch, 0, n, min(c[0], rows), min(c[1], rows))
				}
				var one Vec
				out := make([]float32, rows)
				for i := range n {
					m.Prepare(x[i*cols:(i+1)*cols], &one)
					m.MulVec(out, &one, 0, rows)
					for r := range rows {
						k := i*rows + r
						if whole[k] != byInputs[k] || whole[k] != byRows[k] {
							t.Fatalf("%v %d×%d: input %d row %d: whole %g, by inputs %g, by rows %g", typ, rows, cols, i, r, whole[k], byInputs[k], byRows[k])
						}
						if typ != gguf.F32 && math.Float32bits(whole[k]) != math.Float32bits(out[r]) {
							t.Fatalf("%v %d×%d: input %d row %d: MulBatch %g, MulVec %g", typ, rows, cols, i, r, whole[k], out[r])
						}
						if typ == gguf.F32 {
							want, mag := exactProduct(func() []float32 { w := make([]float32, cols); m.Row(r, w); return w }(), x[i*cols:(i+1)*cols])
							if d := math.Abs(float64(whole[k]) - want); !(d <= float64(cols+4)*u*mag) {
								t.Fatalf("F32: input %d row %d: %g, float64 %g", i, r, whole[k], want)
							}
						}
					}
				}
			}
		}
	})
}

// TestNonFiniteInputGivesNaN checks that a NaN or an infinity in an input
// makes every product with it NaN, for the quantized types, whose
// quantization would otherwise hide it.
func TestNonFiniteInputGivesNaN(t *testing.T) {
	paths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(9, 10))
		for _, typ := range types {
			rows, cols := 5, 2*max(typ.BlockSize(), 32)
			m := mustMatrix(t, typ, rows, cols, randomWeights(rng, typ, rows, cols))
			for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1))} {
				x := randomInput(rng, cols)
				x[cols-1] = bad
				var v Vec
				m.Prepare(x, &v)
				out := make([]float32, rows)
				m.MulVec(out, &v, 0, rows)
				for r, o := range out {
					if o == o && !math.IsInf(float64(o), 0) {
						t.Fatalf("%v with %g in the input: row %d is %g", typ, bad, r, o)
					}
				}
			}
		}
	})
}

// TestNewMatrixRejectsBadShapes checks the errors of NewMatrix.
func TestNewMatrixRejectsBadShapes(t *testing.T) {
	for _, c := range []struct {
		typ        gguf.Type
		rows, cols int
		n          int
	}{
		{gguf.Q4_1, 2, 48, 60},  // not whole blocks
		{gguf.Q4_1, 2, 64, 79},  // a byte short
		{gguf.Q4_1, 2, 64, 81},  // a byte too many
		{gguf.Q6_K, 1, 32, 210}, // a K-quant row of 32
		{gguf.Q5_0, 1, 32, 22},  // a type without products
		{gguf.Type(77), 1, 32, 32},
		{gguf.F32, 0, 4, 0},
		{gguf.F32, 4, -1, 0},
		{gguf.F32, math.MaxInt/4 + 1, 4, 16},
	} {
		if _, err := NewMatrix(c.typ, c.rows, c.cols, make([]byte, c.n)); err == nil {
			t.Errorf("NewMatrix(%v, %d, %d, %d bytes) gave no error", c.typ, c.rows, c.cols, c.n)
		}
	}
	if _, err := NewMatrixF32(3, 4, make([]float32, 11)); err == nil {
		t.Error("NewMatrixF32(3, 4, 11 numbers) gave no error")
	}
}

// TestPreparedVecs checks which matrices take which Vecs.
func TestPreparedVecs(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	mk := func(typ gguf.Type, cols int) *Matrix {
		return mustMatrix(t, typ, 4, cols, randomWeights(rng, typ, 4, cols))
	}
	q41, q80, q4k, f16m := mk(gguf.Q4_1, 256), mk(gguf.Q8_0, 256), mk(gguf.Q4_K, 256), mk(gguf.F16, 256)
	var v Vec
	q41.Prepare(randomInput(rng, 256), &v)
	if !q41.Prepared(&v) || !q80.Prepared(&v) || q4k.Prepared(&v) || f16m.Prepared(&v) || mk(gguf.Q4_1, 512).Prepared(&v) {
		t.Error("a Vec prepared by a Q4_1 matrix of 256 columns serves Q4_1 and Q8_0 matrices of 256 columns only")
	}
	defer func() {
		if recover() == nil {
			t.Error("MulVec of a Q4_K matrix with a Vec prepared for Q4_1 did not panic")
		}
	}()
	q4k.MulVec(make([]float32, 4), &v, 0, 4)
}

// TestKernelsSameBits checks that the AVX2 and the VNNI kernels give the
// same bits: their integer sums are exact and their float operations the
// same, so a model decodes the same tokens on either kind of CPU.
func TestKernelsSameBits(t *testing.T) {
	if !hasVNNI {
		t.Skip("this CPU has no AVX-512 VNNI to compare with AVX2")
	}
	defer func(a, v bool) { useAVX2, useVNNI = a, v }(useAVX2, useVNNI)
	rng := rand.New(rand.NewPCG(13, 14))
	for _, typ := range types {
		rows, cols, n := 37, 5*max(typ.BlockSize(), 32), 6
		m := mustMatrix(t, typ, rows, cols, randomWeights(rng, typ, rows, cols))
		var v Vec
		m.PrepareBatch(randomInput(rng, n*cols), n, &v)
		var outs [2][]float32
		for i, vnni := range []bool{false, true} {
			useAVX2, useVNNI = true, vnni
			outs[i] = make([]float32, n*rows)
			m.MulBatch(outs[i], &v, 0, n, 0, rows)
		}
		for k := range outs[0] {
			if math.Float32bits(outs[0][k]) != math.Float32bits(outs[1][k]) {
				t.Fatalf("%v: input %d row %d: AVX2 %g, VNNI %g", typ, k/rows, k%rows, outs[0][k], outs[1][k])
			}
		}
	}
}

// TestMulVecAccuracy measures how far MulVec is from the product of the
// dequantized matrix with x in float64, on matrices of SmolLM2-135M's
// MLP width, and checks it is within what quantizing x to 8 bits allows
// (quantError, with float32's rounding). With -v it logs the largest
// difference of each type relative to the row's Σ|w·x| and to the
// largest output.
func TestMulVecAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const rows, cols = 64, 1536
	for _, typ := range types {
		data := randomWeights(rng, typ, rows, cols)
		m := mustMatrix(t, typ, rows, cols, data)
		rowBytes, _ := typ.RowBytes(int64(cols))
		w := make([]float32, rows*cols)
		m.Dequantize(w)
		x := randomInput(rng, cols)
		var v Vec
		m.Prepare(x, &v)
		out := make([]float32, rows)
		m.MulVec(out, &v, 0, rows)
		var worstTerms, worstDiff, largest float64
		for r := range rows {
			wr := w[r*cols : (r+1)*cols]
			want, mag := exactProduct(wr, x)
			d := math.Abs(float64(out[r]) - want)
			bound := float64(cols+16) * u * mag
			if v.kind != kindFloat {
				bound += quantError(wr, x, v.block(), rowMins(typ, data[int64(r)*rowBytes:int64(r+1)*rowBytes]))
			}
			if !(d <= bound) {
				t.Errorf("%v row %d: %g, float64 %g: difference %g, more than %g", typ, r, out[r], want, d, bound)
			}
			worstTerms = max(worstTerms, d/mag)
			worstDiff = max(worstDiff, d)
			largest = max(largest, math.Abs(want))
		}
		t.Logf("%-4v largest difference: %.2e of the row's Σ|w·x|, %.2e of the largest output", typ, worstTerms, worstDiff/largest)
	}
}

// TestNoAllocations checks that Prepare, MulVec and MulBatch allocate
// nothing once a Vec has held an input as large: a decoding step makes
// hundreds of products. (F32 products do allocate when a range of rows
// starts or ends inside a four, which the engine's ranges do not.)
func TestNoAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	paths(t, func(t *testing.T) {
		for _, typ := range types {
			rows, cols, n := 21, 3*max(typ.BlockSize(), 32), 5
			m := mustMatrix(t, typ, rows, cols, randomWeights(rng, typ, rows, cols))
			x := randomInput(rng, n*cols)
			out := make([]float32, n*rows)
			var v, batch Vec
			m.Prepare(x[:cols], &v)
			m.PrepareBatch(x, n, &batch)
			lo, hi := 3, 17
			if typ == gguf.F32 {
				lo, hi = 4, 16
			}
			if a := testing.AllocsPerRun(10, func() {
				m.Prepare(x[cols:2*cols], &v)
				m.MulVec(out, &v, 0, rows)
				m.MulVec(out, &v, lo, hi)
				m.PrepareBatch(x, n, &batch)
				m.MulBatch(out, &batch, 0, n, 0, rows)
				m.MulBatch(out, &batch, 1, 4, lo, hi)
			}); a != 0 {
				t.Errorf("%v: %g allocations a run", typ, a)
			}
		}
	})
}

// TestPrepareKernelsMatchGo checks that quantizing inputs with the AVX2
// kernels gives bit for bit what quantize8 gives, on blocks with edge
// values: all zeros, tiny, huge, halves to round, infinities and NaNs.
func TestPrepareKernelsMatchGo(t *testing.T) {
	if !hasAVX2 {
		t.Skip("this CPU has no AVX2")
	}
	defer func(a, v bool) { useAVX2, useVNNI = a, v }(useAVX2, useVNNI)
	rng := rand.New(rand.NewPCG(19, 20))
	const n, cols = 3, 2560 // 80 blocks of 32, 10 of 256 an input
	x := randomInput(rng, n*cols)
	edges := []func(b []float32){
		func(b []float32) { clear(b) },
		func(b []float32) {
			for i := range b {
				b[i] = float32(rng.NormFloat64()) * 0x1p-110
			}
		},
		func(b []float32) { // just below 2⁻¹⁰⁰, and just above
			for i := range b {
				b[i] = float32(rng.NormFloat64()) * 0x1p-104
			}
			b[0], b[1] = 0x1p-101, 0x1.fffffep-101
		},
		func(b []float32) {
			for i := range b {
				b[i] = float32(rng.NormFloat64()) * 0x1p-104
			}
			b[0] = 0x1p-100
		},
		func(b []float32) { b[7] = math.MaxFloat32; b[8] = -math.MaxFloat32 },
		func(b []float32) { b[3] = float32(math.Inf(-1)) },
		func(b []float32) { b[30] = float32(math.NaN()) },
		func(b []float32) { // halves: 127·k/254 for a block whose largest is 1
			for i := range b {
				b[i] = float32(i-16) / 254
			}
			b[0] = 1
		},
		func(b []float32) { b[5] = 0x1p-149 }, // a subnormal, among normals
	}
	for i, edge := range edges {
		edge(x[64*i : 64*i+32])                   // a block of 32
		edge(x[cols+256*i : cols+256*i+256][:32]) // in a block of 256
	}
	var vs [2][2]Vec // [Go, AVX2][kind]
	for i, avx2 := range []bool{false, true} {
		useAVX2, useVNNI = avx2, false
		vs[i][0].prepare(kindQ8x32, x, n, cols)
		vs[i][1].prepare(kindQ8K, x, n, cols)
	}
	same := func(what string, a, b any) {
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("%s: Go and AVX2 differ", what)
		}
	}
	for k := range 2 {
		g, a := &vs[0][k], &vs[1][k]
		same("quants", g.q, a.q)
		same("sums", g.sum, a.sum)
		same("sums of 16", g.bsum, a.bsum)
		same("sums of 32", g.xs, a.xs)
		for _, f := range []struct {
			name string
			g, a []float32
		}{{"scales", g.d, a.d}, {"scaled sums", g.s, a.s}} {
			for i := range f.g {
				if !sameNumber(f.g[i], f.a[i]) {
					t.Errorf("%v %s %d: Go %g, AVX2 %g", g.kind, f.name, i, f.g[i], f.a[i])
				}
			}
		}
	}
}

// TestConcurrentRanges has goroutines share one product by ranges of
// rows cut anywhere, as the engine's cores do: each writes only its rows
// (go test -race checks), and together they give what one gives.
func TestConcurrentRanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, typ := range types {
		rows, cols := 43, 2*max(typ.BlockSize(), 32)
		m := mustMatrix(t, typ, rows, cols, randomWeights(rng, typ, rows, cols))
		var v Vec
		m.Prepare(randomInput(rng, cols), &v)
		whole, shared := make([]float32, rows), make([]float32, rows)
		m.MulVec(whole, &v, 0, rows)
		bounds := []int{0, 5, 6, 13, 24, 30, 41, rows}
		done := make(chan struct{})
		for i := range len(bounds) - 1 {
			go func() {
				m.MulVec(shared, &v, bounds[i], bounds[i+1])
				done <- struct{}{}
			}()
		}
		for range len(bounds) - 1 {
			<-done
		}
		for r := range rows {
			if math.Float32bits(whole[r]) != math.Float32bits(shared[r]) {
				t.Fatalf("%v row %d: %g shared, %g whole", typ, r, shared[r], whole[r])
			}
		}
	}
}
