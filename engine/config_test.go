package engine

import "testing"

// TestNumParams counts the weights of stories260K's shape by hand, and
// checks, on shapes with and without a classifier of their own and with
// grouped queries, that NumParams is what a checkpoint holds: its
// tensors, the legacy RoPE tables left out.
func TestNumParams(t *testing.T) {
	// stories260K: dim 64, hidden 172, 5 layers, 8 heads, 4 key/value
	// heads (kv_dim 32), 512 tokens, shared classifier. The embedding is
	// 512·64 = 32768; a layer is 2·64 (gains) + 2·64·64 (wq, wo) +
	// 2·32·64 (wk, wv) + 3·172·64 (w1, w2, w3) = 45440; the final gain 64.
	c := Config{Dim: 64, HiddenDim: 172, NLayers: 5, NHeads: 8, NKVHeads: 4, VocabSize: 512, SeqLen: 512, SharedClassifier: true}
	if got, want := c.NumParams(), int64(32768+5*45440+64); got != want {
		t.Errorf("NumParams(%v) = %d, want %d", c, got, want)
	}
	for _, c := range []Config{
		c,
		{Dim: 64, HiddenDim: 172, NLayers: 5, NHeads: 8, NKVHeads: 4, VocabSize: 512, SeqLen: 512},
		{Dim: 288, HiddenDim: 768, NLayers: 6, NHeads: 6, NKVHeads: 6, VocabSize: 32000, SeqLen: 256, SharedClassifier: true},
		{Dim: 48, HiddenDim: 100, NLayers: 3, NHeads: 6, NKVHeads: 2, VocabSize: 77, SeqLen: 9},
	} {
		if got, want := c.NumParams(), weightLayout(c).total()-ropeFloats(c); got != want {
			t.Errorf("NumParams(%v) = %d; the checkpoint's tensors hold %d", c, got, want)
		}
	}
}
