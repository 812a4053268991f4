package engine

import (
	"fmt"
)

// Weights holds every tensor of a Llama model as a flat float32 slice, in the
// order and grouping of a llama2.c checkpoint: each tensor type is stored for
// all layers one after the other, and every matrix is row-major (out, in).
type Weights struct {
	TokenEmbedding []float32 // (vocab, dim)
	RMSAtt         []float32 // (layer, dim): RMSNorm weights before attention
	Wq             []float32 // (layer, dim, dim)
	Wk             []float32 // (layer, kv_dim, dim)
	Wv             []float32 // (layer, kv_dim, dim)
	Wo             []float32 // (layer, dim, dim)
	RMSFFN         []float32 // (layer, dim): RMSNorm weights before the MLP
	W1             []float32 // (layer, hidden, dim): gate projection
	W2             []float32 // (layer, dim, hidden): down projection
	W3             []float32 // (layer, hidden, dim): up projection
	RMSFinal       []float32 // (dim): RMSNorm weights before the classifier
	Classifier     []float32 // (vocab, dim): aliases TokenEmbedding when shared
}

// tensor names one weight tensor and its size in floats.
type tensor struct {
	name string
	n    int64
	dst  func(w *Weights) *[]float32
}

// layout lists the tensors in file order.
type layout []tensor

func (l layout) total() int64 {
	var n int64
	for _, t := range l {
		n += t.n
	}
	return n
}

// ropeFloats is the size of the two unused legacy RoPE tables that llama2.c
// checkpoints store between the final RMSNorm and the classifier.
func ropeFloats(c Config) int64 {
	return 2 * int64(c.SeqLen) * int64(c.HeadSize()) / 2
}

// weightLayout returns the tensors of a checkpoint of shape c in file
// order, including the legacy RoPE tables (with a nil destination).
func weightLayout(c Config) layout {
	return layoutIn(c, new([maxTensors]tensor))
}

// maxTensors is the most tensors a checkpoint holds.
const maxTensors = 13

// layoutIn is weightLayout in buf, so that a caller that keeps its buf
// on the stack allocates nothing (Validate runs at every decode step).
func layoutIn(c Config, buf *[maxTensors]tensor) layout {
	d, h, L := int64(c.Dim), int64(c.HiddenDim), int64(c.NLayers)
	v, kv := int64(c.VocabSize), int64(c.KVDim())
	*buf = [maxTensors]tensor{
		{"token_embedding", v * d, func(w *Weights) *[]float32 { return &w.TokenEmbedding }},
		{"rms_att", L * d, func(w *Weights) *[]float32 { return &w.RMSAtt }},
		{"wq", L * d * d, func(w *Weights) *[]float32 { return &w.Wq }},
		{"wk", L * kv * d, func(w *Weights) *[]float32 { return &w.Wk }},
		{"wv", L * kv * d, func(w *Weights) *[]float32 { return &w.Wv }},
		{"wo", L * d * d, func(w *Weights) *[]float32 { return &w.Wo }},
		{"rms_ffn", L * d, func(w *Weights) *[]float32 { return &w.RMSFFN }},
		{"w1", L * h * d, func(w *Weights) *[]float32 { return &w.W1 }},
		{"w2", L * d * h, func(w *Weights) *[]float32 { return &w.W2 }},
		{"w3", L * h * d, func(w *Weights) *[]float32 { return &w.W3 }},
		{"rms_final", d, func(w *Weights) *[]float32 { return &w.RMSFinal }},
		{"rope_tables", ropeFloats(c), nil},
		{"classifier", v * d, func(w *Weights) *[]float32 { return &w.Classifier }},
	}
	if c.SharedClassifier {
		return buf[:maxTensors-1]
	}
	return buf[:]
}

// NewWeights allocates zeroed weights for a model of this shape. It
// refuses a shape that Validate rejects, and weights bigger than the memory
// available.
func NewWeights(c Config) (*Weights, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	what := fmt.Sprintf("the weights of a model of %d parameters (%v)", c.NumParams(), c)
	if err := checkMemory(what, 4*c.NumParams()); err != nil {
		return nil, err
	}
	w := &Weights{}
	for _, t := range weightLayout(c) {
		if t.dst != nil {
			*t.dst(w) = weightSlice(t.n)
		}
	}
	if c.SharedClassifier {
		w.Classifier = w.TokenEmbedding
	}
	return w, nil
}

// Tensors returns every distinct weight tensor by name, in file order. The
// shared classifier is not listed twice. Trainers and tests use it to visit
// all parameters.
func (w *Weights) Tensors(c Config) []NamedTensor {
	var out []NamedTensor
	for _, t := range weightLayout(c) {
		if t.dst != nil {
			out = append(out, NamedTensor{t.name, *t.dst(w)})
		}
	}
	return out
}

// NamedTensor is one weight tensor and its name in the checkpoint layout.
type NamedTensor struct {
	Name string
	Data []float32
}
