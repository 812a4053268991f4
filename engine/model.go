package engine

import (
	"errors"
	"fmt"
)

// Model is a Llama model: its shape and its weights.
type Model struct {
	Config Config
	// Weights are a llama2.c model's weights, as float32, in the layout
	// training works on. A model read from a GGUF file has none: its
	// weights are its Matrices.
	Weights *Weights
	// Matrices are the weights of a model read from a GGUF file, each
	// matrix in its own tensor type. For a llama2.c model it is nil, and
	// the forward pass reads the Weights as float32 matrices.
	Matrices *Matrices
	// Name says where the model came from (a file path, or "default").
	Name string
}

// A State (forward.go) runs its Model, and the Model makes its States
// here: the two files use each other's declarations.

// NewState makes a fresh sequence state with an empty KV cache. It
// allocates nothing: the model is checked, and the buffers made, by the
// first pass.
func (m *Model) NewState() *State { return &State{Model: m} }

// Validate reports what makes a model unusable: no model at all, a shape
// that Config.Validate rejects, or weights missing or of the wrong size
// for the shape (naming the tensor and both sizes). It is cheap — it looks
// at sizes, not values — and every pass runs it first, so a model put
// together by hand gets an error instead of a crash.
func (m *Model) Validate() error {
	if m == nil {
		return errors.New("no model (nil *Model)")
	}
	if err := m.Config.Validate(); err != nil {
		return fmt.Errorf("model %s: %w", m.Name, err)
	}
	if m.Matrices != nil {
		if err := m.Matrices.validate(m.Config); err != nil {
			return fmt.Errorf("model %s: %w", m.Name, err)
		}
		return nil
	}
	if m.Weights == nil {
		return fmt.Errorf("model %s has no weights", m.Name)
	}
	var buf [maxTensors]tensor
	for _, t := range layoutIn(m.Config, &buf) {
		if t.dst != nil {
			if n := int64(len(*t.dst(m.Weights))); n != t.n {
				return fmt.Errorf("model %s: tensor %s holds %d values but the shape %v needs %d", m.Name, t.name, n, m.Config, t.n)
			}
		}
	}
	if n, want := int64(len(m.Weights.Classifier)), int64(m.Config.VocabSize)*int64(m.Config.Dim); n != want {
		return fmt.Errorf("model %s: the classifier holds %d values but the shape %v needs %d", m.Name, n, m.Config, want)
	}
	return nil
}

// WeightBytes is the size of the model's weights in memory: what one
// decoding step reads, the classifier counted once when it is the
// embedding.
func (m *Model) WeightBytes() int64 {
	if m.Matrices == nil {
		return 4 * m.Config.NumParams()
	}
	mats := m.Matrices
	n := mats.Embedding.Bytes() + 4*int64(len(mats.RMSFinal))
	if mats.Classifier != mats.Embedding {
		n += mats.Classifier.Bytes()
	}
	for _, L := range mats.Layers {
		n += 4 * int64(len(L.RMSAtt)+len(L.RMSFFN))
		for _, mx := range []*Matrix{L.Wq, L.Wk, L.Wv, L.Wo, L.W1, L.W2, L.W3} {
			n += mx.Bytes()
		}
	}
	return n
}
