package engine

import (
	"fmt"
	"unsafe"

	"github.com/tokenbytoken/course/engine/internal/quant"
)

// Matrix is one weight matrix, rows × cols, stored in one tensor type:
// float32, as llama2.c stores every weight, or one of GGUF's types, most of
// them quantized to 8 or 4 bits in blocks of 32 or 256 numbers. Each type
// has its own products (the matrix-vector product of a decode step, the
// matrix-matrix product of prefill), so the forward pass multiplies by a
// Matrix without asking what is inside.
type Matrix = quant.Matrix

// Layer is one transformer block's weights as the forward pass reads them:
// the RMSNorm gains before attention and before the MLP, and the block's
// seven matrices.
type Layer struct {
	RMSAtt, RMSFFN []float32 // (dim)
	Wq, Wk, Wv, Wo *Matrix   // (dim, dim), (kv_dim, dim) twice, (dim, dim)
	W1, W2, W3     *Matrix   // gate (hidden, dim), down (dim, hidden), up (hidden, dim)
}

// Matrices are a model's weights as the forward pass reads them: the token
// embedding, the blocks, the final RMSNorm gain and the classifier (the
// vocabulary projection), which may be the embedding matrix itself.
type Matrices struct {
	Embedding  *Matrix // (vocab, dim): row t is token t's embedding
	Layers     []Layer
	RMSFinal   []float32 // (dim)
	Classifier *Matrix   // (vocab, dim)
}

// matrices returns the weights of the state's model as Matrices:
// m.Matrices for a model read from GGUF, else views of its float32
// Weights. The views are the state's own (a State runs on one goroutine,
// while many may share a Model), made on the first pass and made again if
// the Weights are replaced or the model changes shape.
func (s *State) matrices() *Matrices {
	m := s.Model
	if m.Matrices != nil {
		return m.Matrices
	}
	w, c := m.Weights, m.Config
	if s.f32 != nil && s.f32of == w && s.f32first == &w.Wq[0] && s.f32config == c {
		return s.f32
	}
	d, h, kv := c.Dim, c.HiddenDim, c.KVDim()
	mat := func(rows, cols int, data []float32) *Matrix {
		mx, err := quant.NewMatrixF32(rows, cols, data)
		if err != nil {
			panic(fmt.Sprintf("engine: %v (Validate checks the sizes first)", err))
		}
		return mx
	}
	mats := &Matrices{
		Embedding:  mat(c.VocabSize, d, w.TokenEmbedding),
		RMSFinal:   w.RMSFinal,
		Classifier: mat(c.VocabSize, d, w.Classifier),
		Layers:     make([]Layer, c.NLayers),
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
	s.f32, s.f32of, s.f32first, s.f32config = mats, w, &w.Wq[0], c
	return mats
}

// validate reports the first matrix or gain whose shape does not fit c.
func (mats *Matrices) validate(c Config) error {
	check := func(name string, mx *Matrix, rows, cols int) error {
		switch {
		case mx == nil:
			return fmt.Errorf("matrix %s is missing", name)
		case mx.Rows() != rows || mx.Cols() != cols:
			return fmt.Errorf("matrix %s is %d×%d but the shape %v needs %d×%d", name, mx.Rows(), mx.Cols(), c, rows, cols)
		}
		return nil
	}
	gain := func(name string, g []float32) error {
		if len(g) != c.Dim {
			return fmt.Errorf("%s holds %d values but the shape %v needs %d", name, len(g), c, c.Dim)
		}
		return nil
	}
	d, h, kv, v := c.Dim, c.HiddenDim, c.KVDim(), c.VocabSize
	if len(mats.Layers) != c.NLayers {
		return fmt.Errorf("%d layers of weights but the shape %v has %d", len(mats.Layers), c, c.NLayers)
	}
	for _, err := range []error{check("token_embedding", mats.Embedding, v, d), check("classifier", mats.Classifier, v, d), gain("rms_final", mats.RMSFinal)} {
		if err != nil {
			return err
		}
	}
	for l, L := range mats.Layers {
		for _, err := range []error{
			gain("rms_att", L.RMSAtt), gain("rms_ffn", L.RMSFFN),
			check("wq", L.Wq, d, d), check("wk", L.Wk, kv, d), check("wv", L.Wv, kv, d), check("wo", L.Wo, d, d),
			check("w1", L.W1, h, d), check("w2", L.W2, d, h), check("w3", L.W3, h, d),
		} {
			if err != nil {
				return fmt.Errorf("layer %d: %w", l, err)
			}
		}
	}
	return nil
}

// vecFor returns a Vec that holds x prepared for w's products: shared, when
// it was prepared from x for a matrix whose products w can share, or own,
// prepared now.
func vecFor(w *Matrix, x []float32, shared, own *quant.Vec) *quant.Vec {
	if w.Prepared(shared) {
		return shared
	}
	w.Prepare(x, own)
	return own
}

// floatsOf views little-endian float32 data held as bytes (a GGUF file's
// F32 tensor, mapped) as []float32, without copying. data's address is a
// multiple of 4, as GGUF's alignment makes it.
func floatsOf(data []byte) []float32 {
	if len(data) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&data[0])), len(data)/4)
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
