package engine

import (
	"github.com/tokenbytoken/course/engine/internal/quant"

	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tokenbytoken/course/engine/internal/simd"
)

// Benchmarks of the hot kernels of a decoding step, named so that
// benchstat can compare two builds:
//
//	go test ./engine -run '^$' -bench 'DecodeMatmul|Attention|DecodeStep' -count 10 > new.txt
//	benchstat old.txt new.txt
//
// The machine's other work shows in the timings: compare builds in one
// session, and alternate them (-count with runs interleaved by hand) rather
// than trusting one number.

// stories260KShape is the reference model's shape, for benchmarks that do
// not need its weights.
var stories260KShape = Config{Dim: 64, HiddenDim: 172, NLayers: 5, NHeads: 8, NKVHeads: 4, VocabSize: 512, SeqLen: 512, SharedClassifier: true}

// benchShapes are the two shapes the kernel benchmarks use.
var benchShapes = []struct {
	name string
	c    Config
}{{"260K", stories260KShape}, {"15M", stories15MShape}}

func randomVector(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// BenchmarkDecodeMatmul is every matrix-vector product of a decode step,
// by its shape (rows × columns): the query/output projections, the key and
// value projections, the MLP's up and down projections and the vocabulary
// projection. One op is one product; MB/s counts the weights read.
func BenchmarkDecodeMatmul(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, sh := range benchShapes {
		c := sh.c
		for _, p := range []struct {
			name       string
			rows, cols int
		}{{"wq", c.Dim, c.Dim}, {"wkv", c.KVDim(), c.Dim}, {"w1", c.HiddenDim, c.Dim}, {"w2", c.Dim, c.HiddenDim}, {"vocab", c.VocabSize, c.Dim}} {
			w, x, out := randomVector(r, p.rows*p.cols), randomVector(r, p.cols), make([]float32, p.rows)
			m, err := quant.NewMatrixF32(p.rows, p.cols, w)
			if err != nil {
				b.Fatal(err)
			}
			var v quant.Vec
			b.Run(fmt.Sprintf("%s/%s-%dx%d", sh.name, p.name, p.rows, p.cols), func(b *testing.B) {
				b.SetBytes(int64(4 * len(w)))
				for b.Loop() {
					matmul(out, x, m, &v)
				}
			})
		}
	}
}

// attentionCase is the input of one layer's attention at position pos:
// a query for every head and a cache of pos+1 random keys and values.
type attentionCase struct {
	c                         Config
	pos                       int
	q, keys, values, att, out []float32
}

func newAttentionCase(c Config, pos int, seed uint64) *attentionCase {
	r := rand.New(rand.NewPCG(seed, 3))
	n := (pos + 1) * c.KVDim()
	return &attentionCase{c: c, pos: pos, q: randomVector(r, c.Dim),
		keys: randomVector(r, n), values: randomVector(r, n),
		att: make([]float32, c.NHeads*(pos+1)), out: make([]float32, c.Dim)}
}

// attentionImpls are the ways to compute one layer's attention on one
// core, each with the name its benchmark gets.
var attentionImpls = []struct {
	name string
	f    func(out, q, keys, values, att []float32, c Config, pos, h0, h1 int)
}{
	{"plain", func(out, q, keys, values, att []float32, c Config, pos, h0, h1 int) {
		attendHeadsUsing(false, out, q, keys, values, att, c, pos, h0, h1)
	}},
	{"kernel", func(out, q, keys, values, att []float32, c Config, pos, h0, h1 int) {
		attendHeadsUsing(true, out, q, keys, values, att, c, pos, h0, h1)
	}},
}

// BenchmarkAttention is one layer's attention for one new token over a
// cache of 64, 256 and 512 positions, every head on one core: the scores,
// their softmax and the weighted sum of the values. One op is one layer.
func BenchmarkAttention(b *testing.B) {
	for _, sh := range benchShapes {
		for _, n := range []int{64, 256, 512} {
			a := newAttentionCase(sh.c, n-1, 1)
			for _, impl := range attentionImpls {
				if impl.name == "kernel" && !simd.Available {
					continue
				}
				b.Run(fmt.Sprintf("%s/pos%d/%s", sh.name, n, impl.name), func(b *testing.B) {
					for b.Loop() {
						impl.f(a.out, a.q, a.keys, a.values, a.att, a.c, a.pos, 0, a.c.NHeads)
					}
				})
			}
		}
	}
}

// BenchmarkDecodeStep is one whole decode step (Forward without its
// checks) at a fixed position, the cache holding the positions before it:
// early (63), and late in the context (255, and 511 on stories260K, whose
// context is 512), with the vectorised attention and with the plain
// loops, side by side. One op is one token.
func BenchmarkDecodeStep(b *testing.B) {
	models := []struct {
		name string
		m    *Model
	}{{"15M-shape", noisyModel(stories15MShape, 1, 0.02)}}
	if mp, _ := referencePaths(b); mp != "" {
		ref, err := LoadModel(mp)
		if err != nil {
			b.Fatal(err)
		}
		models = append([]struct {
			name string
			m    *Model
		}{{"stories260K", ref}}, models...)
	}
	for _, mm := range models {
		for _, pos := range []int{63, 255, 511} {
			if pos >= mm.m.Config.SeqLen {
				continue
			}
			st := mm.m.NewState()
			for p := range pos {
				if _, err := st.Forward(1+p%100, p); err != nil {
					b.Fatal(err)
				}
			}
			for _, attn := range []string{"kernel", "plain"} {
				if attn == "kernel" && !simd.Available {
					continue
				}
				b.Run(fmt.Sprintf("%s/pos%d/%s-attention", mm.name, pos, attn), func(b *testing.B) {
					defer func() { attentionKernels = true }()
					attentionKernels = attn == "kernel"
					b.ReportAllocs()
					for b.Loop() {
						st.forward(1, pos)
					}
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tok/s")
				})
			}
		}
	}
}
