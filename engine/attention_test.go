package engine

import (
	"fmt"
	"math"
	"testing"

	"github.com/tokenbytoken/course/engine/internal/simd"
)

// attentionTolerance is how far the vectorised attention may be from the
// plain loops, relative to the largest output of the layer: the two sum
// the same products in different orders, so they differ by float32
// rounding only, a few units in the 7th digit.
const attentionTolerance = 1e-5

// TestAttentionKernelsMatchPlainLoops runs one layer's attention with the
// kernels and with the plain loops a learner would write, on the shapes
// of stories260K (grouped-query, heads of 8) and of stories15M (heads of
// 48), at positions that leave every remainder in the kernels' blocks.
func TestAttentionKernelsMatchPlainLoops(t *testing.T) {
	if !simd.Available {
		t.Skip("this CPU has no AVX2/FMA: attention runs the plain loops only")
	}
	gqa16 := Config{Dim: 64, HiddenDim: 96, NLayers: 1, NHeads: 4, NKVHeads: 1, VocabSize: 64, SeqLen: 128, SharedClassifier: true}
	for _, sh := range []struct {
		name string
		c    Config
	}{{"260K", stories260KShape}, {"15M", stories15MShape}, {"gqa4-hs16", gqa16}} {
		for _, pos := range []int{0, 1, 6, 7, 8, 30, 63, 100, 255} {
			t.Run(fmt.Sprintf("%s/pos%d", sh.name, pos), func(t *testing.T) {
				a := newAttentionCase(sh.c, pos, uint64(pos))
				want := make([]float32, len(a.out))
				attendHeadsUsing(false, want, a.q, a.keys, a.values, a.att, a.c, pos, 0, a.c.NHeads)
				attendHeadsUsing(true, a.out, a.q, a.keys, a.values, a.att, a.c, pos, 0, a.c.NHeads)
				var scale float64
				for _, v := range want {
					scale = max(scale, math.Abs(float64(v)))
				}
				for i := range want {
					if d := math.Abs(float64(a.out[i] - want[i])); !(d <= attentionTolerance*scale) {
						t.Fatalf("output %d: kernel %g, plain loops %g (difference %g, largest output %g)", i, a.out[i], want[i], d, scale)
					}
				}
			})
		}
	}
}

// TestKernelsKeepGreedyOutput decodes greedily with the kernels (of
// attention and of the MLP's SwiGLU) and with the plain loops, on the
// reference model and on random models of the 15M shape and of a
// grouped-query shape: the tokens must be the same, and every step's
// logits within a tolerance of each other.
func TestKernelsKeepGreedyOutput(t *testing.T) {
	if !simd.Available {
		t.Skip("this CPU has no AVX2/FMA: attention runs the plain loops only")
	}
	models := []*Model{
		noisyModel(Config{Dim: 288, HiddenDim: 768, NLayers: 2, NHeads: 6, NKVHeads: 6, VocabSize: 2000, SeqLen: 256, SharedClassifier: true}, 3, 0.05),
		noisyModel(Config{Dim: 128, HiddenDim: 200, NLayers: 3, NHeads: 8, NKVHeads: 2, VocabSize: 500, SeqLen: 256}, 4, 0.08),
	}
	if mp, _ := referencePaths(t); mp != "" {
		ref, err := LoadModel(mp)
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, ref)
	}
	defer func() { attentionKernels, swigluKernel = true, true }()
	for _, m := range models {
		decode := func(fast bool) (tokens []int, logits [][]float32) {
			attentionKernels, swigluKernel = fast, fast
			st := m.NewState()
			token := 1
			for pos := range 200 {
				l, err := st.Forward(token, pos)
				if err != nil {
					t.Fatal(err)
				}
				logits = append(logits, append([]float32(nil), l...))
				token = argmax(l)
				tokens = append(tokens, token)
			}
			return tokens, logits
		}
		plainTokens, plainLogits := decode(false)
		fastTokens, fastLogits := decode(true)
		for i := range plainTokens {
			closeLogits(t, fmt.Sprintf("%v, step %d", m.Config, i), fastLogits[i], plainLogits[i], 1e-4)
			if fastTokens[i] != plainTokens[i] {
				t.Fatalf("%v: step %d: the kernels pick token %d, the plain loops %d", m.Config, i, fastTokens[i], plainTokens[i])
			}
		}
	}
}
