package engine

import (
	"fmt"

	"github.com/tokenbytoken/course/engine/internal/quant"
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

// NewMatrix makes a float32 matrix of rows × cols that views data, row
// after row, without copying it. It refuses data of another size.
func NewMatrix(rows, cols int, data []float32) (*Matrix, error) {
	return quant.NewMatrixF32(rows, cols, data)
}

// matricesOf views llama2.c weights, whose sizes fit c, as the Matrices
// the forward pass reads: each layer's slice of each tensor is a float32
// matrix, and the classifier is the embedding's matrix when it is shared.
func matricesOf(c Config, w *Weights) (*Matrices, error) {
	d, h, kv := c.Dim, c.HiddenDim, c.KVDim()
	var err error
	mat := func(rows, cols int, data []float32) *Matrix {
		mx, e := NewMatrix(rows, cols, data)
		if e != nil && err == nil {
			err = e
		}
		return mx
	}
	mats := &Matrices{
		Embedding: mat(c.VocabSize, d, w.TokenEmbedding),
		RMSFinal:  w.RMSFinal,
		Layers:    make([]Layer, c.NLayers),
	}
	mats.Classifier = mats.Embedding
	if !c.SharedClassifier || &w.Classifier[0] != &w.TokenEmbedding[0] {
		mats.Classifier = mat(c.VocabSize, d, w.Classifier)
	}
	for l := range mats.Layers {
		mats.Layers[l] = Layer{
			RMSAtt: w.RMSAtt[l*d : (l+1)*d], RMSFFN: w.RMSFFN[l*d : (l+1)*d],
			Wq: mat(d, d, w.Wq[l*d*d:(l+1)*d*d]), Wk: mat(kv, d, w.Wk[l*kv*d:(l+1)*kv*d]),
			Wv: mat(kv, d, w.Wv[l*kv*d:(l+1)*kv*d]), Wo: mat(d, d, w.Wo[l*d*d:(l+1)*d*d]),
			W1: mat(h, d, w.W1[l*h*d:(l+1)*h*d]), W2: mat(d, h, w.W2[l*d*h:(l+1)*d*h]),
			W3: mat(h, d, w.W3[l*h*d:(l+1)*h*d]),
		}
	}
	return mats, err
}

// eachTensor calls f with every tensor of llama2.c's layout in file
// order, as float32 numbers read from the model's Matrices: a whole
// tensor, or one layer's part of it, at a time, so that at most one
// matrix is held beside the model. The legacy RoPE tables come as zeros,
// and the classifier only when it is not the embedding. buf is scratch of
// the largest matrix's size, grown as needed.
func (m *Model) eachTensor(f func(name string, values []float32) error) error {
	c, mats := m.Config, m.Matrices
	var buf []float32
	matrix := func(mx *Matrix) []float32 {
		n := mx.Rows() * mx.Cols()
		if cap(buf) < n {
			buf = make([]float32, n)
		}
		buf = buf[:n]
		mx.Dequantize(buf)
		return buf
	}
	perLayer := func(name string, of func(L *Layer) []float32) error {
		for l := range mats.Layers {
			if err := f(name, of(&mats.Layers[l])); err != nil {
				return err
			}
		}
		return nil
	}
	steps := []func() error{
		func() error { return f("token_embedding", matrix(mats.Embedding)) },
		func() error { return perLayer("rms_att", func(L *Layer) []float32 { return L.RMSAtt }) },
		func() error { return perLayer("wq", func(L *Layer) []float32 { return matrix(L.Wq) }) },
		func() error { return perLayer("wk", func(L *Layer) []float32 { return matrix(L.Wk) }) },
		func() error { return perLayer("wv", func(L *Layer) []float32 { return matrix(L.Wv) }) },
		func() error { return perLayer("wo", func(L *Layer) []float32 { return matrix(L.Wo) }) },
		func() error { return perLayer("rms_ffn", func(L *Layer) []float32 { return L.RMSFFN }) },
		func() error { return perLayer("w1", func(L *Layer) []float32 { return matrix(L.W1) }) },
		func() error { return perLayer("w2", func(L *Layer) []float32 { return matrix(L.W2) }) },
		func() error { return perLayer("w3", func(L *Layer) []float32 { return matrix(L.W3) }) },
		func() error { return f("rms_final", mats.RMSFinal) },
		func() error { return f("rope_tables", make([]float32, ropeFloats(c))) },
	}
	if !c.SharedClassifier {
		steps = append(steps, func() error { return f("classifier", matrix(mats.Classifier)) })
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// CopyWeights copies the model's weights into w, float32 tensors in
// llama2.c's layout of the model's shape (as NewWeights makes them):
// a GGUF model's quantized matrices come out dequantized. A trainer
// starts from a model this way.
func (m *Model) CopyWeights(w *Weights) error {
	if err := m.Validate(); err != nil {
		return err
	}
	next := map[string]int64{}
	var buf [maxTensors]tensor
	dsts := map[string][]float32{}
	for _, t := range layoutIn(m.Config, &buf) {
		if t.dst != nil {
			dst := *t.dst(w)
			if int64(len(dst)) != t.n {
				return fmt.Errorf("CopyWeights: tensor %s holds %d values but the shape %v needs %d", t.name, len(dst), m.Config, t.n)
			}
			dsts[t.name] = dst
		}
	}
	return m.eachTensor(func(name string, values []float32) error {
		if dst, ok := dsts[name]; ok {
			next[name] += int64(copy(dst[next[name]:], values))
		}
		return nil
	})
}
