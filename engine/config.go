package engine

import "fmt"

// Config holds the shape of a Llama model, as stored in the 28-byte header of a
// llama2.c checkpoint.
type Config struct {
	Dim       int // width of the residual stream (embedding size)
	HiddenDim int // width of the MLP's hidden layer
	NLayers   int // number of transformer blocks
	NHeads    int // number of query heads
	NKVHeads  int // number of key/value heads (fewer than NHeads: grouped-query attention)
	VocabSize int // number of tokens in the vocabulary
	SeqLen    int // longest context the model supports, in tokens

	// SharedClassifier reports whether the output projection (the
	// "classifier" that turns the final hidden state into logits) reuses the
	// token embedding matrix. In the file, a negative vocab_size means it
	// does not.
	SharedClassifier bool

	// RopeTheta is the base of the rotary position embeddings' angles,
	// and NormEps the epsilon inside RMSNorm's square root. llama2.c's
	// header has neither: 0 means its values, 10000 and 1e-5. A GGUF
	// file states its own.
	RopeTheta float64
	NormEps   float64
}

// ropeTheta is RopeTheta, or llama2.c's 10000.
func (c Config) ropeTheta() float64 {
	if c.RopeTheta == 0 {
		return 10000
	}
	return c.RopeTheta
}

// normEps is NormEps, or llama2.c's 1e-5, as a float32.
func (c Config) normEps() float32 {
	if c.NormEps == 0 {
		return rmsEps
	}
	return float32(c.NormEps)
}

// Limits on each header field. They are far above any model that runs on a
// laptop and exist so that a corrupt header is reported as such instead of
// leading to an attempt to allocate an absurd amount of memory.
const (
	maxDim    = 1 << 16
	maxHidden = 1 << 18
	maxLayers = 1 << 10
	maxHeads  = 1 << 10
	maxVocab  = 1 << 21
	maxSeqLen = 1 << 20
)

// HeadSize is the width of one attention head (0 for a shape without
// heads, which Validate rejects).
func (c Config) HeadSize() int {
	if c.NHeads <= 0 {
		return 0
	}
	return c.Dim / c.NHeads
}

// KVDim is the width of the keys (and values) of one position in one layer.
func (c Config) KVDim() int { return c.NKVHeads * c.HeadSize() }

// KVMul is how many query heads share each key/value head (0 for a shape
// without key/value heads, which Validate rejects).
func (c Config) KVMul() int {
	if c.NKVHeads <= 0 {
		return 0
	}
	return c.NHeads / c.NKVHeads
}

// Validate reports the first header field that is impossible or absurd.
func (c Config) Validate() error {
	check := func(name string, v, max int) error {
		if v <= 0 || v > max {
			return fmt.Errorf("%s = %d is out of range (1..%d)", name, v, max)
		}
		return nil
	}
	for _, f := range []struct {
		name   string
		v, max int
	}{
		{"dim", c.Dim, maxDim},
		{"hidden_dim", c.HiddenDim, maxHidden},
		{"n_layers", c.NLayers, maxLayers},
		{"n_heads", c.NHeads, maxHeads},
		{"n_kv_heads", c.NKVHeads, maxHeads},
		{"vocab_size", c.VocabSize, maxVocab},
		{"seq_len", c.SeqLen, maxSeqLen},
	} {
		if err := check(f.name, f.v, f.max); err != nil {
			return err
		}
	}
	if c.Dim%c.NHeads != 0 {
		return fmt.Errorf("n_heads = %d does not divide dim = %d", c.NHeads, c.Dim)
	}
	if c.NKVHeads > c.NHeads || c.NHeads%c.NKVHeads != 0 {
		return fmt.Errorf("n_kv_heads = %d does not divide n_heads = %d", c.NKVHeads, c.NHeads)
	}
	if c.RopeTheta < 0 || c.RopeTheta != c.RopeTheta || c.RopeTheta > 1e12 {
		return fmt.Errorf("rope theta = %v is out of range (0 for llama2.c's 10000, or up to 1e12)", c.RopeTheta)
	}
	if c.NormEps < 0 || c.NormEps != c.NormEps || c.NormEps > 1 {
		return fmt.Errorf("norm epsilon = %v is out of range (0 for llama2.c's 1e-5, or up to 1)", c.NormEps)
	}
	if c.HeadSize()%2 != 0 {
		return fmt.Errorf("head size dim/n_heads = %d is odd; rotary embeddings need pairs", c.HeadSize())
	}
	return nil
}

// NumParams counts the model's weights (the classifier counted once if
// shared): the token embedding, in every layer two RMSNorm gains and the
// seven matrices, the final gain, and a classifier of its own.
func (c Config) NumParams() int64 {
	d, h, L := int64(c.Dim), int64(c.HiddenDim), int64(c.NLayers)
	v, kv := int64(c.VocabSize), int64(c.KVDim())
	n := v*d + L*(2*d+2*d*d+2*kv*d+3*h*d) + d
	if !c.SharedClassifier {
		n += v * d
	}
	return n
}

// String describes the shape in one line.
func (c Config) String() string {
	shared := "shared"
	if !c.SharedClassifier {
		shared = "separate"
	}
	return fmt.Sprintf("dim=%d hidden=%d layers=%d heads=%d kv_heads=%d vocab=%d seq_len=%d classifier=%s",
		c.Dim, c.HiddenDim, c.NLayers, c.NHeads, c.NKVHeads, c.VocabSize, c.SeqLen, shared)
}
