package quant

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tokenbytoken/course/engine/gguf"
)

// llamaCppQ8 is testdata/llamacpp-q8.bin: inputs and what llama.cpp's CPU
// backend made of them, recorded from its type traits' from_float for
// Q8_0, Q8_1 and Q8_K (the quantization of activations before products
// with Q4_0 and Q8_0, Q4_1, and K-quant weights), built for x86-64 with
// AVX2 (llama.cpp at the commit of ../../testdata/llamacpp/README.md). The
// file is, little-endian:
//
//	uint32 n, a multiple of 256
//	n float32: the inputs, blocks of 32 of sizes from 10⁻³⁰ to 10³,
//	    among them ties to round, zeros and negative largest magnitudes
//	n/32 Q8_0 blocks: f16 d, 32 int8
//	n/32 Q8_1 blocks: f16 d, f16 s, 32 int8
//	n/256 Q8_K blocks: float32 d, 256 int8, 16 int16 sums of 16
type llamaCppQ8 struct {
	x          []float32
	q80, q81   []byte
	q8K        []byte
	blocks32   int
	superBlock int
}

func readLlamaCppQ8(t *testing.T) llamaCppQ8 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "llamacpp-q8.bin"))
	if err != nil {
		t.Fatal(err)
	}
	n := int(binary.LittleEndian.Uint32(data))
	if n%256 != 0 || len(data) != 4+4*n+n/32*(34+36)+n/256*292 {
		t.Fatalf("llamacpp-q8.bin: %d bytes for n = %d", len(data), n)
	}
	f := llamaCppQ8{x: make([]float32, n), blocks32: n / 32, superBlock: n / 256}
	for i := range f.x {
		f.x[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4+4*i:]))
	}
	o := 4 + 4*n
	f.q80 = data[o : o+n/32*34]
	o += n / 32 * 34
	f.q81 = data[o : o+n/32*36]
	o += n / 32 * 36
	f.q8K = data[o:]
	return f
}

// TestQuantizeMatchesLlamaCpp prepares the recorded inputs as Vecs for
// Q4_1/Q8_0 and K-quant matrices, with the kernels and in plain Go, and
// compares every quant, scale and sum with llama.cpp's: the same bits.
// llama.cpp's Q8_K multiplies by −127/max, max being the number of
// largest magnitude with its sign, so its quants, scale and sums are the
// negatives of these where that number is positive.
func TestQuantizeMatchesLlamaCpp(t *testing.T) {
	f := readLlamaCppQ8(t)
	paths(t, func(t *testing.T) {
		var v32, vK Vec
		v32.prepare(kindQ8x32, f.x, 1, len(f.x))
		vK.prepare(kindQ8K, f.x, 1, len(f.x))
		for b := range f.blocks32 {
			q, d, s := inputBlock(&v32, 0, b)
			b0, b1 := f.q80[34*b:34*b+34], f.q81[36*b:36*b+36]
			if !sameNumber(d, f16At(b0)) || !sameNumber(d, f16At(b1)) {
				t.Errorf("block %d: scale %g; llama.cpp's Q8_0 %g, Q8_1 %g", b, d, f16At(b0), f16At(b1))
			}
			if !sameNumber(s, f16At(b1[2:])) {
				t.Errorf("block %d: scaled sum %g; llama.cpp's %g", b, s, f16At(b1[2:]))
			}
			for i := range 32 {
				if q[i] != int8(b0[2+i]) || q[i] != int8(b1[4+i]) {
					t.Fatalf("block %d: quant %d is %d; llama.cpp's Q8_0 %d, Q8_1 %d (input %g)",
						b, i, q[i], int8(b0[2+i]), int8(b1[4+i]), f.x[32*b+i])
				}
			}
		}
		for j := range f.superBlock {
			blk := f.q8K[292*j : 292*j+292]
			d := math.Float32frombits(binary.LittleEndian.Uint32(blk))
			sign := int8(1)
			if d < 0 {
				sign, d = -1, -d
			}
			if !sameNumber(vK.d[j], d) {
				t.Errorf("super-block %d: scale %g; llama.cpp's %g", j, vK.d[j], d)
			}
			for i := range 256 {
				if vK.q[256*j+i] != sign*int8(blk[4+i]) {
					t.Fatalf("super-block %d: quant %d is %d; llama.cpp's %d", j, i, vK.q[256*j+i], int8(blk[4+i]))
				}
			}
			for k := range 16 {
				want := int16(binary.LittleEndian.Uint16(blk[260+2*k:]))
				if vK.bsum[16*j+k] != int16(sign)*want {
					t.Errorf("super-block %d: sum %d is %d; llama.cpp's %d", j, k, vK.bsum[16*j+k], want)
				}
			}
		}
	})
}

// TestProductsMatchLlamaCpp multiplies Q4_0, Q4_1 and Q8_0 rows by
// float32 inputs and compares the results, bit for bit, with llama.cpp's:
// testdata/llamacpp-dots.bin holds, little-endian, uint32 rows, cols and
// inputs; the inputs, inputs × cols float32; then for each type its id
// (uint32), rows × cols of weights as GGUF stores them (quantized by
// ggml_quantize_chunk from random numbers) and inputs × rows float32
// results, each the input quantized by the from_float of the type's
// vec_dot_type and multiplied by its vec_dot, as llama.cpp's matrix
// product does for one input (built as ../../testdata/llamacpp/README.md
// says, for x86-64 with AVX2 and AVX-512).
func TestProductsMatchLlamaCpp(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "llamacpp-dots.bin"))
	if err != nil {
		t.Fatal(err)
	}
	u32 := func() int {
		v := int(binary.LittleEndian.Uint32(data))
		data = data[4:]
		return v
	}
	f32s := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		}
		data = data[4*n:]
		return x
	}
	rows, cols, inputs := u32(), u32(), u32()
	x := f32s(inputs * cols)
	for range 3 {
		typ := gguf.Type(u32())
		rowBytes, _ := typ.RowBytes(int64(cols))
		w := data[:int64(rows)*rowBytes]
		data = data[len(w):]
		want := f32s(inputs * rows)
		t.Run(typ.String(), func(t *testing.T) {
			paths(t, func(t *testing.T) {
				m := mustMatrix(t, typ, rows, cols, w)
				var v, batch Vec
				out := make([]float32, rows)
				for in := range inputs {
					m.Prepare(x[in*cols:(in+1)*cols], &v)
					m.MulVec(out, &v, 0, rows)
					for r := range rows {
						if !sameNumber(out[r], want[in*rows+r]) {
							t.Fatalf("%v input %d row %d: %g; llama.cpp %g", typ, in, r, out[r], want[in*rows+r])
						}
					}
				}
				all := make([]float32, inputs*rows)
				m.PrepareBatch(x, inputs, &batch)
				m.MulBatch(all, &batch, 0, inputs, 0, rows)
				for k := range all {
					if !sameNumber(all[k], want[k]) {
						t.Fatalf("%v input %d row %d (MulBatch): %g; llama.cpp %g", typ, k/rows, k%rows, all[k], want[k])
					}
				}
			})
		})
	}
	if len(data) != 0 {
		t.Fatalf("llamacpp-dots.bin has %d bytes more than expected", len(data))
	}
}
