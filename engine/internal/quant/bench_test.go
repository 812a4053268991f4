package quant

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tokenbytoken/course/engine/gguf"
)

// The matrices of SmolLM2-135M: the attention's query and output (576 ×
// 576), key and value (192 × 576), the MLP's gate and up (1536 × 576)
// and down (576 × 1536), and the vocabulary projection (49152 × 576).
var (
	modelShapes = [][2]int{{576, 576}, {192, 576}, {1536, 576}, {576, 1536}}
	vocabShape  = [2]int{49152, 576}
)

// kShapes are shapes for the K-quants, whose rows are whole blocks of 256:
// SmolLM2-135M's down projection (576 × 1536) and a 1.1B Llama's
// attention (2048 × 2048) and MLP (5632 × 2048, 2048 × 5632) matrices.
var kShapes = [][2]int{{576, 1536}, {2048, 2048}, {5632, 2048}, {2048, 5632}}

// fromMemory is how many bytes of matrices a benchmark cycles through so
// that each product reads its weights from memory, as a decoding step
// does, rather than from a cache (this machine's largest is 32 MB).
const fromMemory = 96 << 20

// benchMulVec times MulVec on one core for each shape, on one matrix
// (whose weights then sit in a cache) and cycling through copies of it
// that do not fit in any cache.
func benchMulVec(b *testing.B, typ gguf.Type, shapes ...[2]int) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, s := range shapes {
		rows, cols := s[0], s[1]
		m := mustMatrix(b, typ, rows, cols, randomWeights(rng, typ, rows, cols))
		copies := []*Matrix{m}
		for int64(len(copies))*m.Bytes() < fromMemory {
			copies = append(copies, mustMatrix(b, typ, rows, cols, randomWeights(rng, typ, rows, cols)))
		}
		x, out := randomInput(rng, cols), make([]float32, rows)
		var v Vec
		m.Prepare(x, &v)
		for _, c := range []struct {
			name string
			ms   []*Matrix
		}{{"cache", copies[:1]}, {"memory", copies}} {
			b.Run(fmt.Sprintf("%dx%d/%s", rows, cols, c.name), func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					c.ms[i%len(c.ms)].MulVec(out, &v, 0, rows)
				}
				b.ReportMetric(float64(m.Bytes())*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			})
		}
	}
}

func BenchmarkMulVecQ4_1(b *testing.B) { benchMulVec(b, gguf.Q4_1, modelShapes...) }
func BenchmarkMulVecQ8_0(b *testing.B) { benchMulVec(b, gguf.Q8_0, append(modelShapes, vocabShape)...) }
func BenchmarkMulVecQ4_0(b *testing.B) { benchMulVec(b, gguf.Q4_0, modelShapes...) }
func BenchmarkMulVecQ4_K(b *testing.B) { benchMulVec(b, gguf.Q4_K, kShapes...) }
func BenchmarkMulVecQ5_K(b *testing.B) { benchMulVec(b, gguf.Q5_K, kShapes...) }
func BenchmarkMulVecQ6_K(b *testing.B) { benchMulVec(b, gguf.Q6_K, kShapes...) }
func BenchmarkMulVecF16(b *testing.B)  { benchMulVec(b, gguf.F16, modelShapes...) }
func BenchmarkMulVecBF16(b *testing.B) { benchMulVec(b, gguf.BF16, modelShapes...) }
func BenchmarkMulVecF32(b *testing.B)  { benchMulVec(b, gguf.F32, modelShapes...) }

// benchMulBatch times MulBatch on one core for a prefill of n tokens.
func benchMulBatch(b *testing.B, typ gguf.Type, n int, shapes ...[2]int) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, s := range shapes {
		rows, cols := s[0], s[1]
		m := mustMatrix(b, typ, rows, cols, randomWeights(rng, typ, rows, cols))
		x, out := randomInput(rng, n*cols), make([]float32, n*rows)
		var v Vec
		m.PrepareBatch(x, n, &v)
		b.Run(fmt.Sprintf("%dx%dx%d", n, rows, cols), func(b *testing.B) {
			for b.Loop() {
				m.MulBatch(out, &v, 0, n, 0, rows)
			}
			b.ReportMetric(float64(n*rows*cols)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gmul/s")
		})
	}
}

func BenchmarkMulBatchQ4_1(b *testing.B) { benchMulBatch(b, gguf.Q4_1, 64, modelShapes...) }
func BenchmarkMulBatchQ8_0(b *testing.B) { benchMulBatch(b, gguf.Q8_0, 64, modelShapes...) }
func BenchmarkMulBatchQ4_K(b *testing.B) { benchMulBatch(b, gguf.Q4_K, 64, kShapes[:2]...) }
func BenchmarkMulBatchQ6_K(b *testing.B) { benchMulBatch(b, gguf.Q6_K, 64, kShapes[:2]...) }

// BenchmarkPrepare times quantizing one input of 576 numbers.
func BenchmarkPrepare(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, typ := range []gguf.Type{gguf.Q4_1, gguf.Q4_K} {
		m := mustMatrix(b, typ, 4, 768, randomWeights(rng, typ, 4, 768))
		x := randomInput(rng, 768)
		var v Vec
		b.Run(typ.String(), func(b *testing.B) {
			for b.Loop() {
				m.Prepare(x, &v)
			}
		})
	}
}
