package engine

import (
	"math"
	"testing"
)

// checkHidden checks that the projection of Hidden's vector is the model's
// own logits for the token after tokens.
func checkHidden(t *testing.T, m *Model, tokens []int) {
	t.Helper()
	h, logits, err := m.Hidden(tokens)
	if err != nil {
		t.Fatal(err)
	}
	c := m.Config
	if len(h) != c.Dim || len(logits) != c.VocabSize {
		t.Fatalf("hidden has %d numbers and logits %d; want %d and %d", len(h), len(logits), c.Dim, c.VocabSize)
	}
	// The logits of a plain token-by-token run.
	st := m.NewState()
	var want []float32
	for pos, id := range tokens {
		if want, err = st.Forward(id, pos); err != nil {
			t.Fatal(err)
		}
	}
	for i := range c.VocabSize {
		var sum float64
		for j := range c.Dim {
			sum += float64(m.Weights().Classifier[i*c.Dim+j]) * float64(h[j])
		}
		tol := 1e-4 * math.Max(1, math.Abs(float64(want[i])))
		if math.Abs(sum-float64(want[i])) > tol || math.Abs(float64(logits[i]-want[i])) > tol {
			t.Fatalf("token %d: W_out · hidden = %v, Hidden's logit %v, Forward's logit %v", i, sum, logits[i], want[i])
		}
	}
}

func TestHiddenProjectsToLogitsDefaultModel(t *testing.T) {
	m, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	ids, err := tok.Encode("func (b *Buffer) Len() int {\n\treturn", true, false)
	if err != nil {
		t.Fatal(err)
	}
	checkHidden(t, m, ids)
	checkHidden(t, m, ids[:1]) // a single token: no prefill
}

func TestHiddenProjectsToLogitsRandomModel(t *testing.T) {
	// A separate classifier, grouped-query attention, more tokens than
	// hidden dimensions and fewer.
	for _, c := range []Config{
		{Dim: 16, HiddenDim: 24, NLayers: 2, NHeads: 4, NKVHeads: 2, VocabSize: 40, SeqLen: 16},
		{Dim: 32, HiddenDim: 48, NLayers: 1, NHeads: 4, NKVHeads: 4, VocabSize: 10, SeqLen: 8, SharedClassifier: true},
	} {
		m := randomModel(c, 7)
		checkHidden(t, m, []int{1, 5, 3, 2, 7, 0})
	}
}

func TestHiddenRefusesBadInput(t *testing.T) {
	m := randomModel(Config{Dim: 8, HiddenDim: 8, NLayers: 1, NHeads: 2, NKVHeads: 2, VocabSize: 10, SeqLen: 4}, 1)
	if _, _, err := m.Hidden(nil); err == nil {
		t.Error("no tokens: want an error")
	}
	if _, _, err := m.Hidden([]int{1, 2, 3, 4, 5}); err == nil {
		t.Error("more tokens than the context: want an error")
	}
	if _, _, err := m.Hidden([]int{1, 99}); err == nil {
		t.Error("a token outside the vocabulary: want an error")
	}
}
