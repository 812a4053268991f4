package train

import "testing"

// BenchmarkSwiGLU is the MLP's gate over a batch's hidden activations, the
// full preset's shape, forward and backward, shared among the cores:
//
//	go test ./engine/train -run '^$' -bench SwiGLU
func BenchmarkSwiGLU(b *testing.B) {
	c := Presets["full"].Target
	n := c.BatchSize * c.Model.SeqLen * c.Model.HiddenDim
	g, h1, h3, dg, dh1, dh3 := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range h1 {
		h1[i] = float32(i%97-48) / 25
		h3[i] = float32(i%13-6) / 7
		dg[i] = float32(i%5-2) / 3
	}
	b.Run("forward", func(b *testing.B) {
		for b.Loop() {
			swigluRows(g, h1, h3)
		}
	})
	b.Run("backward", func(b *testing.B) {
		for b.Loop() {
			swigluBackward(dh1, dh3, dg, h1, h3)
		}
	})
}
