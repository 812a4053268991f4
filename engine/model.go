package engine

import (
	"errors"
	"fmt"
)

// Model is a Llama model: its shape and its weights, as the forward pass
// reads them. Every model, whatever file it came from, holds its weights
// in one form, Matrices: a llama2.c checkpoint's float32 tensors are
// viewed as float32 matrices when it is read (see NewModel), and a GGUF
// file's tensors keep their own types.
type Model struct {
	Config   Config
	Matrices *Matrices
	// Name says where the model came from (a file path, or "default").
	Name string

	// weights are the llama2.c tensors the Matrices view, for a model
	// made from them; nil for a model read from GGUF.
	weights *Weights
}

// NewModel makes a model of shape c from float32 weights in llama2.c's
// layout, as a checkpoint holds them or a trainer updates them. The
// model's Matrices view w's tensors without copying them: writing to w
// changes the model. It refuses a shape that Config.Validate rejects and
// a tensor whose size does not fit the shape (naming both sizes).
func NewModel(c Config, w *Weights) (*Model, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if w == nil {
		return nil, errors.New("NewModel: no weights (nil *Weights)")
	}
	var buf [maxTensors]tensor
	for _, t := range layoutIn(c, &buf) {
		if t.dst != nil {
			if n := int64(len(*t.dst(w))); n != t.n {
				return nil, fmt.Errorf("tensor %s holds %d values but the shape %v needs %d", t.name, n, c, t.n)
			}
		}
	}
	if n, want := int64(len(w.Classifier)), int64(c.VocabSize)*int64(c.Dim); n != want {
		return nil, fmt.Errorf("the classifier holds %d values but the shape %v needs %d", n, c, want)
	}
	mats, err := matricesOf(c, w)
	if err != nil {
		return nil, err
	}
	return &Model{Config: c, Matrices: mats, weights: w}, nil
}

// Weights returns the float32 tensors, in llama2.c's layout, that the
// Matrices of a model made by NewModel (or read from a llama2.c
// checkpoint) view: writing to them changes the model. A model read from
// a GGUF file has none, and returns nil: its tensors are in their own
// types (see Matrices, and CopyWeights for a float32 copy of any model).
func (m *Model) Weights() *Weights { return m.weights }

// A State (forward.go) runs its Model, and the Model makes its States
// here: the two files use each other's declarations.

// NewState makes a fresh sequence state with an empty KV cache. It
// allocates nothing: the model is checked, and the buffers made, by the
// first pass.
func (m *Model) NewState() *State { return &State{Model: m} }

// Validate reports what makes a model unusable: no model at all, a shape
// that Config.Validate rejects, or matrices missing or of the wrong size
// for the shape (naming the matrix and both sizes). It is cheap — it looks
// at sizes, not values — and a State runs it once, before its first pass,
// so a model put together by hand gets an error instead of a crash.
func (m *Model) Validate() error {
	if m == nil {
		return errors.New("no model (nil *Model)")
	}
	if err := m.Config.Validate(); err != nil {
		return fmt.Errorf("model %s: %w", m.Name, err)
	}
	if m.Matrices == nil {
		return fmt.Errorf("model %s has no weights (make it with NewModel, or load it)", m.Name)
	}
	if err := m.Matrices.validate(m.Config); err != nil {
		return fmt.Errorf("model %s: %w", m.Name, err)
	}
	return nil
}

// WeightBytes is the size of the model's weights in memory: what one
// decoding step reads, the classifier counted once when it is the
// embedding.
func (m *Model) WeightBytes() int64 {
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
