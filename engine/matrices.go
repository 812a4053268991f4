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
//
// Its methods are those of the type it stands for, in
// engine/internal/quant (go doc ./engine/internal/quant Matrix, from the
// repository, prints them in full); go doc does not list an alias's
// methods, so here they are:
//
//   - Rows() and Cols() int: the shape, a product's outputs and the
//     length of its input.
//   - Type() gguf.Type: the tensor type the weights are stored in.
//   - Row(i int, dst []float32): row i as float32, an embedding lookup;
//     it panics if i is out of range or dst is shorter than a row.
//   - Dequantize(dst []float32): the whole matrix as float32, row after
//     row, into Rows·Cols numbers.
//   - Bytes() int64: the bytes one product reads, what a decoding step
//     costs in memory traffic for this matrix.
//   - Prepare, PrepareBatch, Prepared, MulVec and MulBatch: the products,
//     whose inputs (a quant.Vec) only the engine prepares.
//
// It is an alias rather than a type of its own so that the forward pass
// and the products share one type: a type declared here would need each
// method written again to call quant's, and a conversion wherever a
// matrix goes from one package to the other, for no change in behaviour.
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
// vocabulary projection), which may be the embedding matrix itself; and
// the arithmetic of the forward pass between the products.
type Matrices struct {
	Embedding  *Matrix // (vocab, dim): row t is token t's embedding
	Layers     []Layer
	RMSFinal   []float32 // (dim)
	Classifier *Matrix   // (vocab, dim)
	// Arithmetic is how the pass rounds between the products: RunC
	// (the zero value, llama2.c's float32) or LlamaCpp (a GGUF model's,
	// with keys and values cached in f16).
	Arithmetic Arithmetic
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
	if mats.Arithmetic != RunC && mats.Arithmetic != LlamaCpp {
		return fmt.Errorf("arithmetic %d is neither RunC (%d) nor LlamaCpp (%d)", mats.Arithmetic, RunC, LlamaCpp)
	}
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
