package engine

import (
	"testing"

	"github.com/tokenbytoken/course/engine/internal/quant"
)

// Shapes for the benchmarks: the reference stories260K and a model shaped
// like llama2.c's stories15M (random weights; speed does not depend on
// them). Run with, for example:
//
//	go test ./engine -run '^$' -bench 'Forward|Prefill' -benchtime 2s
//
// Timings vary with whatever else the machine runs.
var stories15MShape = Config{Dim: 288, HiddenDim: 768, NLayers: 6, NHeads: 6, NKVHeads: 6, VocabSize: 32000, SeqLen: 256, SharedClassifier: true}

func benchModels(b *testing.B) map[string]*Model {
	ref, _ := loadReference(b)
	return map[string]*Model{"stories260K": ref, "15M-shape": noisyModel(stories15MShape, 1, 0.02)}
}

// BenchmarkForward is one decode step, averaged over positions 0..255: one
// op is one token.
func BenchmarkForward(b *testing.B) {
	for name, m := range benchModels(b) {
		b.Run(name, func(b *testing.B) {
			st := m.NewState()
			if err := st.Reserve(256); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				st.forward(i%100+1, i%256)
			}
		})
	}
}

// BenchmarkPrefill runs a 128-token prompt in one batched pass, and token
// by token for comparison; tok/s is the figure to compare.
func BenchmarkPrefill(b *testing.B) {
	for name, m := range benchModels(b) {
		prompt := make([]int, 128)
		for i := range prompt {
			prompt[i] = (i*7 + 1) % m.Config.VocabSize
		}
		st := m.NewState()
		b.Run(name+"/batched", func(b *testing.B) {
			for b.Loop() {
				st.Prefill(prompt, 0)
			}
			b.ReportMetric(float64(b.N*len(prompt))/b.Elapsed().Seconds(), "tok/s")
		})
		b.Run(name+"/sequential", func(b *testing.B) {
			for b.Loop() {
				for pos, id := range prompt {
					st.forward(id, pos)
				}
			}
			b.ReportMetric(float64(b.N*len(prompt))/b.Elapsed().Seconds(), "tok/s")
		})
	}
}

// BenchmarkMatmul is the 15M-shape vocabulary projection, the largest
// matrix-vector product of a decode step.
func BenchmarkMatmul(b *testing.B) {
	c := stories15MShape
	// Weights that were never written would all be the kernel's one page
	// of zeros, read from the cache: fill them, so they come from memory.
	w := make([]float32, c.VocabSize*c.Dim)
	for i := range w {
		w[i] = float32(i%13) - 6
	}
	x := make([]float32, c.Dim)
	out := make([]float32, c.VocabSize)
	m, err := quant.NewMatrixF32(c.VocabSize, c.Dim, w)
	if err != nil {
		b.Fatal(err)
	}
	var v quant.Vec
	b.SetBytes(int64(4 * len(w)))
	b.ReportAllocs()
	for b.Loop() {
		matmul(out, x, m, &v)
	}
}
