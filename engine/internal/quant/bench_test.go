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
// does, rather than from a cache: more than the last-level caches of
// today's processors hold.
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

// smolLM2 is the weights of SmolLM2-135M-Instruct as its Q4_1 file
// stores them, with random numbers: 30 layers of 7 Q4_1 matrices and the
// Q8_0 vocabulary projection, 96 MB in all.
type smolLM2 struct {
	layers [30][7]*Matrix // q, k, v, o, gate, up, down
	vocab  *Matrix
}

func newSmolLM2(b *testing.B) *smolLM2 {
	rng := rand.New(rand.NewPCG(4, 4))
	var s smolLM2
	shapes := [7][2]int{{576, 576}, {192, 576}, {192, 576}, {576, 576}, {1536, 576}, {1536, 576}, {576, 1536}}
	for l := range s.layers {
		for i, sh := range shapes {
			s.layers[l][i] = mustMatrix(b, gguf.Q4_1, sh[0], sh[1], randomWeights(rng, gguf.Q4_1, sh[0], sh[1]))
		}
	}
	s.vocab = mustMatrix(b, gguf.Q8_0, vocabShape[0], vocabShape[1], randomWeights(rng, gguf.Q8_0, vocabShape[0], vocabShape[1]))
	return &s
}

// step does the matrix products of one decoding step (rows share of
// each), with fresh inputs for each Prepare as a step has: the q, k and v
// projections share theirs, and gate and up theirs.
func (s *smolLM2) step(share func(rows int) (int, int), x576, x1536 []float32, outs *[2][]float32, vs *[4]Vec) {
	out := outs[0]
	for _, l := range s.layers {
		l[0].Prepare(x576, &vs[0])
		for _, m := range l[:3] {
			r0, r1 := share(m.Rows())
			m.MulVec(out, &vs[0], r0, r1)
		}
		l[3].Prepare(x576, &vs[1])
		r0, r1 := share(576)
		l[3].MulVec(out, &vs[1], r0, r1)
		l[4].Prepare(x576, &vs[2])
		r0, r1 = share(1536)
		l[4].MulVec(out, &vs[2], r0, r1)
		l[5].MulVec(outs[1], &vs[2], r0, r1)
		l[6].Prepare(x1536, &vs[3])
		r0, r1 = share(576)
		l[6].MulVec(out, &vs[3], r0, r1)
	}
	s.vocab.Prepare(x576, &vs[0])
	r0, r1 := share(s.vocab.Rows())
	s.vocab.MulVec(out, &vs[0], r0, r1)
}

// BenchmarkSmolLM2Step times the matrix products of a decoding step of
// SmolLM2-135M, and reports them as tokens a second, on one core and on
// two. On two, each core does its half of the rows of every matrix, and
// the cores meet once a step: an engine that hands out each product
// separately waits for the slower core more often, so this is a bound.
func BenchmarkSmolLM2Step(b *testing.B) {
	s := newSmolLM2(b)
	rng := rand.New(rand.NewPCG(5, 5))
	x576, x1536 := randomInput(rng, 576), randomInput(rng, 1536)
	for _, cores := range []int{1, 2} {
		b.Run(fmt.Sprintf("cores=%d", cores), func(b *testing.B) {
			type state struct {
				outs [2][]float32
				vs   [4]Vec
			}
			st := make([]state, cores)
			for c := range st {
				st[c].outs = [2][]float32{make([]float32, vocabShape[0]), make([]float32, 1536)}
			}
			for b.Loop() {
				done := make(chan struct{}, cores)
				for c := range cores {
					go func() {
						share := func(rows int) (int, int) {
							half := rows / 8 * 4
							if cores == 1 {
								return 0, rows
							}
							if c == 0 {
								return 0, half
							}
							return half, rows
						}
						s.step(share, x576, x1536, &st[c].outs, &st[c].vs)
						done <- struct{}{}
					}()
				}
				for range cores {
					<-done
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// BenchmarkNewMatrix times making a Matrix from a file's bytes, which
// rearranges Q4_1 and Q8_0 blocks: the load-time cost of the layout.
func BenchmarkNewMatrix(b *testing.B) {
	rng := rand.New(rand.NewPCG(6, 6))
	for _, c := range []struct {
		typ   gguf.Type
		shape [2]int
	}{{gguf.Q4_1, [2]int{1536, 576}}, {gguf.Q8_0, vocabShape}} {
		data := randomWeights(rng, c.typ, c.shape[0], c.shape[1])
		b.Run(fmt.Sprintf("%v/%dx%d", c.typ, c.shape[0], c.shape[1]), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				mustMatrix(b, c.typ, c.shape[0], c.shape[1], data)
			}
		})
	}
}
