package engine

import (
	"errors"
	"fmt"
	"math"

	"github.com/tokenbytoken/course/engine/gguf"
	"github.com/tokenbytoken/course/engine/internal/quant"
)

// A GGUF file (llama.cpp's format, which Ollama and LM Studio use too)
// holds a model's shape and tokenizer as typed key/value metadata, and its
// tensors by name, each in its own type: most matrices quantized to 4 to 8
// bits, norms as float32. The engine runs models of the "llama"
// architecture: Llama 1 to 3 without RoPE scaling, SmolLM, TinyLlama,
// Mistral's first model without its sliding window, and the like.

// ggufMagic opens every GGUF file: "GGUF" as bytes.
const ggufMagic = "GGUF"

// modelFromGGUF makes a model from an open GGUF file: its shape from the
// llama.* keys, its weights from the tensors. Any other architecture, a
// missing or misshapen tensor, or a tensor type the engine cannot compute
// with is refused, naming what was found. The matrices of the types the
// engine stores in a layout of its own (float32, Q8_0, Q4_0, Q4_1) are
// copied; the others are read where they are, so f must stay open as long
// as the model is used. The model computes with llama.cpp's arithmetic
// (Matrices.Arithmetic is LlamaCpp): its logits are those of llama.cpp's
// CPU backend with its default settings. With drop, f is a file the
// engine mapped itself, and the pages of each tensor it copies are
// dropped once copied (see dropPages).
func modelFromGGUF(f *gguf.File, name string, drop bool) (*Model, error) {
	arch, err := f.String("general.architecture")
	if err != nil {
		return nil, err
	}
	if arch != "llama" {
		return nil, fmt.Errorf("the model's architecture is %q; the engine runs the \"llama\" architecture", arch)
	}
	c, err := ggufConfig(f)
	if err != nil {
		return nil, err
	}
	what := fmt.Sprintf("the weights of a model of %d parameters (%v)", c.NumParams(), c)
	if err := checkMemory(what, ggufBytes(f)); err != nil {
		return nil, err
	}
	// The arithmetic between the products is llama.cpp's, as the products'
	// own is (see Matrix.Prepare): the model gives llama.cpp's logits.
	mats := &Matrices{Layers: make([]Layer, c.NLayers), Arithmetic: LlamaCpp}
	d, h, kv := c.Dim, c.HiddenDim, c.KVDim()
	if mats.Embedding, err = ggufMatrix(f, "token_embd.weight", c.VocabSize, d, drop); err != nil {
		return nil, err
	}
	if mats.RMSFinal, err = ggufGain(f, "output_norm.weight", d); err != nil {
		return nil, err
	}
	if _, ok := f.Tensor("output.weight"); ok {
		if mats.Classifier, err = ggufMatrix(f, "output.weight", c.VocabSize, d, drop); err != nil {
			return nil, err
		}
	} else {
		// No output matrix: the classifier is the embedding, tied.
		mats.Classifier = mats.Embedding
		c.SharedClassifier = true
	}
	for l := range mats.Layers {
		L := &mats.Layers[l]
		name := func(s string) string { return fmt.Sprintf("blk.%d.%s.weight", l, s) }
		for _, g := range []struct {
			name string
			dst  *[]float32
		}{{"attn_norm", &L.RMSAtt}, {"ffn_norm", &L.RMSFFN}} {
			if *g.dst, err = ggufGain(f, name(g.name), d); err != nil {
				return nil, err
			}
		}
		for _, mx := range []struct {
			name       string
			dst        **Matrix
			rows, cols int
		}{
			{"attn_q", &L.Wq, d, d}, {"attn_k", &L.Wk, kv, d}, {"attn_v", &L.Wv, kv, d}, {"attn_output", &L.Wo, d, d},
			{"ffn_gate", &L.W1, h, d}, {"ffn_down", &L.W2, d, h}, {"ffn_up", &L.W3, h, d},
		} {
			if *mx.dst, err = ggufMatrix(f, name(mx.name), mx.rows, mx.cols, drop); err != nil {
				return nil, err
			}
		}
	}
	m := &Model{Config: c, Matrices: mats, Name: name}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// ggufConfig reads a llama model's shape from its llama.* keys, refusing
// what the engine does not run: partial or scaled rotary embeddings.
func ggufConfig(f *gguf.File) (Config, error) {
	var c Config
	for _, k := range []struct {
		key string
		dst *int
	}{
		{"llama.embedding_length", &c.Dim}, {"llama.feed_forward_length", &c.HiddenDim},
		{"llama.block_count", &c.NLayers}, {"llama.attention.head_count", &c.NHeads},
		{"llama.context_length", &c.SeqLen},
	} {
		v, err := f.Uint(k.key)
		if err != nil {
			return c, err
		}
		if v > math.MaxInt32 {
			return c, fmt.Errorf("%s = %d is out of range", k.key, v)
		}
		*k.dst = int(v)
	}
	c.NKVHeads = c.NHeads
	if v, err := f.Uint("llama.attention.head_count_kv"); err == nil {
		if v > math.MaxInt32 {
			return c, fmt.Errorf("llama.attention.head_count_kv = %d is out of range", v)
		}
		c.NKVHeads = int(v)
	} else if !missing(err) {
		return c, err
	}
	emb, ok := f.Tensor("token_embd.weight")
	if !ok {
		return c, errors.New("no tensor token_embd.weight (the token embedding)")
	}
	if len(emb.Dims) != 2 || emb.Dims[1] > math.MaxInt32 {
		return c, fmt.Errorf("tensor token_embd.weight has dimensions %v; want [embedding_length, vocabulary]", emb.Dims)
	}
	c.VocabSize = int(emb.Dims[1])
	c.RopeTheta, c.NormEps = 10000, 1e-5
	for _, k := range []struct {
		key string
		dst *float64
	}{{"llama.rope.freq_base", &c.RopeTheta}, {"llama.attention.layer_norm_rms_epsilon", &c.NormEps}} {
		v, err := f.Float(k.key)
		if err == nil {
			*k.dst = v
		} else if !missing(err) {
			return c, err
		}
	}
	if c.RopeTheta == 0 || c.NormEps == 0 {
		return c, fmt.Errorf("rope base %v and RMSNorm epsilon %v: both must be above 0", c.RopeTheta, c.NormEps)
	}
	if err := c.Validate(); err != nil {
		return c, err
	}
	if v, err := f.Uint("llama.rope.dimension_count"); err == nil && v != uint64(c.HeadSize()) {
		return c, fmt.Errorf("llama.rope.dimension_count = %d: the engine rotates whole heads of %d", v, c.HeadSize())
	} else if err != nil && !missing(err) {
		return c, err
	}
	if s, err := f.String("llama.rope.scaling.type"); err == nil && s != "none" {
		return c, fmt.Errorf("llama.rope.scaling.type = %q: the engine runs rotary embeddings without scaling", s)
	}
	if _, ok := f.Tensor("rope_freqs.weight"); ok {
		return c, errors.New("the model scales its rotary frequencies (tensor rope_freqs.weight), which the engine does not do")
	}
	return c, nil
}

// missing reports whether err says a key is not in the file.
func missing(err error) bool {
	var ke *gguf.KeyError
	return errors.As(err, &ke) && ke.Missing
}

// ggufBytes is what the model's weights take in memory at most: the
// tensors' bytes.
func ggufBytes(f *gguf.File) int64 {
	var n int64
	for _, t := range f.Tensors {
		n += int64(len(t.Data))
	}
	return n
}

// ggufTensor finds a tensor and checks its shape: dims are GGUF's, the
// length of a row first.
func ggufTensor(f *gguf.File, name string, dims ...int) (*gguf.TensorInfo, error) {
	t, ok := f.Tensor(name)
	if !ok {
		return nil, fmt.Errorf("no tensor %s", name)
	}
	same := len(t.Dims) == len(dims)
	for i := 0; same && i < len(dims); i++ {
		same = t.Dims[i] == int64(dims[i])
	}
	if !same {
		return nil, fmt.Errorf("tensor %s has dimensions %v; the model's shape needs %v", name, t.Dims, dims)
	}
	return t, nil
}

// ggufMatrix reads a rows × cols matrix (GGUF dimensions [cols, rows]);
// with drop, the tensor's pages are dropped once copied.
func ggufMatrix(f *gguf.File, name string, rows, cols int, drop bool) (*Matrix, error) {
	t, err := ggufTensor(f, name, cols, rows)
	if err != nil {
		return nil, err
	}
	mx, err := quant.NewMatrix(t.Type, rows, cols, t.Data)
	if err != nil {
		return nil, fmt.Errorf("tensor %s: %w", name, err)
	}
	if drop && copied(mx) {
		dropPages(t.Data)
	}
	return mx, nil
}

// copied reports whether mx holds its own copy of its weights: the types
// the engine stores in a layout of its own.
func copied(mx *Matrix) bool {
	switch mx.Type() {
	case gguf.F32, gguf.Q8_0, gguf.Q4_0, gguf.Q4_1:
		return true
	}
	return false
}

// ggufGain reads a norm's gain vector, as float32 numbers of its own,
// checked to be finite.
func ggufGain(f *gguf.File, name string, n int) ([]float32, error) {
	t, err := ggufTensor(f, name, n)
	if err != nil {
		return nil, err
	}
	g := make([]float32, n)
	if err := quant.Dequantize(t.Type, g, t.Data); err != nil {
		return nil, fmt.Errorf("tensor %s: %w", name, err)
	}
	if at := firstNonFinite(g); at >= 0 {
		return nil, fmt.Errorf("weight %s[%d] is %v: a model's weights must be finite numbers", name, at, g[at])
	}
	return g, nil
}

// loadGGUF reads the model of a GGUF file, mapped. The file stays mapped
// for as long as the process runs, as a llama2.c model's does: matrices of
// some types are read where they are.
func loadGGUF(path string) (*Model, error) {
	f, err := gguf.Open(path)
	if err != nil {
		return nil, err
	}
	m, err := modelFromGGUF(f, path, true)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	if m.Matrices.inPlace() == 0 {
		f.Close() // every matrix has its own copy
	}
	return m, nil
}

// inPlace counts the matrices that read their file's bytes where they are.
func (mats *Matrices) inPlace() int {
	n := 0
	count := func(mx *Matrix) {
		if !copied(mx) {
			n++
		}
	}
	count(mats.Embedding)
	count(mats.Classifier)
	for _, L := range mats.Layers {
		for _, mx := range []*Matrix{L.Wq, L.Wk, L.Wv, L.Wo, L.W1, L.W2, L.W3} {
			count(mx)
		}
	}
	return n
}
