package engine

import (
	"math"
	"math/rand/v2"
)

// randomModel builds a small model with random weights, for tests that need
// a real forward pass but no particular behaviour.
func randomModel(c Config, seed uint64) *Model {
	r := rand.New(rand.NewPCG(seed, 1))
	w := mustWeights(c)
	for _, t := range w.Tensors(c) {
		for i := range t.Data {
			t.Data[i] = float32(r.NormFloat64() * 0.5)
		}
	}
	return mustModel(c, w, "random")
}

// mustModel is NewModel, named, for weights the tests know fit c.
func mustModel(c Config, w *Weights, name string) *Model {
	m, err := NewModel(c, w)
	if err != nil {
		panic(err)
	}
	m.Name = name
	return m
}

// mustWeights is NewWeights for shapes the tests know to be valid.
func mustWeights(c Config) *Weights {
	w, err := NewWeights(c)
	if err != nil {
		panic(err)
	}
	return w
}

// byteTokenizer builds a llama2.c-style vocabulary: <unk>, <s>, </s>, the
// 256 byte tokens, then the given pieces with decreasing merge scores.
func byteTokenizer(pieces ...string) *Tokenizer {
	all := []string{"<unk>", "<s>", "</s>"}
	var scores []float32
	scores = append(scores, 0, 0, 0)
	for b := range 256 {
		all = append(all, byteName(byte(b)))
		scores = append(scores, 0)
	}
	for i, p := range pieces {
		all = append(all, p)
		scores = append(scores, float32(len(pieces)-i))
	}
	t, err := NewTokenizer(all, scores, 0)
	if err != nil {
		panic(err)
	}
	return t
}

func byteName(b byte) string {
	const hex = "0123456789ABCDEF"
	return "<0x" + string(hex[b>>4]) + string(hex[b&15]) + ">"
}

// argmax is the id of the largest logit, the first of equals.
func argmax(logits []float32) int {
	best := 0
	for i, z := range logits {
		if z > logits[best] {
			best = i
		}
	}
	return best
}

// logSumExp64 is ln Σ exp(z), summed in float64 from the largest.
func logSumExp64(logits []float32) float64 {
	m := float64(logits[argmax(logits)])
	var sum float64
	for _, z := range logits {
		sum += math.Exp(float64(z) - m)
	}
	return m + math.Log(sum)
}
