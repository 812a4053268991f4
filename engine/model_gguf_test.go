package engine

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine/gguf"
	"github.com/tokenbytoken/course/engine/internal/ggufwrite"
)

// tinyShape is a small llama shape with grouped-query attention, for GGUF
// files written by the tests.
var tinyShape = Config{Dim: 64, HiddenDim: 96, NLayers: 2, NHeads: 4, NKVHeads: 2, VocabSize: 259, SeqLen: 64, SharedClassifier: true}

// spmVocab is a SentencePiece vocabulary of byte tokens only: <unk>, <s>,
// </s>, then <0x00>..<0xFF>.
func spmVocab() []ggufwrite.KeyValue {
	tokens := []string{"<unk>", "<s>", "</s>"}
	types := []int32{2, 3, 3}
	for b := range 256 {
		tokens = append(tokens, fmt.Sprintf("<0x%02X>", b))
		types = append(types, 6)
	}
	return []ggufwrite.KeyValue{
		{Key: "tokenizer.ggml.model", Value: ggufwrite.StringValue("llama")},
		{Key: "tokenizer.ggml.tokens", Value: ggufwrite.StringsValue(tokens)},
		{Key: "tokenizer.ggml.token_type", Value: ggufwrite.Int32sValue(types)},
		{Key: "tokenizer.ggml.scores", Value: ggufwrite.Float32sValue(make([]float32, len(tokens)))},
		{Key: "tokenizer.ggml.bos_token_id", Value: ggufwrite.Uint32Value(1)},
		{Key: "tokenizer.ggml.eos_token_id", Value: ggufwrite.Uint32Value(2)},
	}
}

// llamaMeta is the llama.* metadata of shape c.
func llamaMeta(c Config) []ggufwrite.KeyValue {
	return []ggufwrite.KeyValue{
		{Key: "general.architecture", Value: ggufwrite.StringValue("llama")},
		{Key: "llama.embedding_length", Value: ggufwrite.Uint32Value(uint32(c.Dim))},
		{Key: "llama.feed_forward_length", Value: ggufwrite.Uint32Value(uint32(c.HiddenDim))},
		{Key: "llama.block_count", Value: ggufwrite.Uint32Value(uint32(c.NLayers))},
		{Key: "llama.attention.head_count", Value: ggufwrite.Uint32Value(uint32(c.NHeads))},
		{Key: "llama.attention.head_count_kv", Value: ggufwrite.Uint32Value(uint32(c.NKVHeads))},
		{Key: "llama.context_length", Value: ggufwrite.Uint32Value(uint32(c.SeqLen))},
		{Key: "llama.rope.freq_base", Value: ggufwrite.Float32Value(10000)},
		{Key: "llama.attention.layer_norm_rms_epsilon", Value: ggufwrite.Float32Value(1e-5)},
	}
}

// f32Bytes is w as little-endian float32 bytes.
func f32Bytes(w []float32) []byte {
	b := make([]byte, 4*len(w))
	for i, v := range w {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// q8Bytes makes rows × cols random Q8_0 blocks: a float16 scale of 1/256,
// then 32 random int8.
func q8Bytes(r *rand.Rand, rows, cols int) []byte {
	var b []byte
	for range rows * cols / 32 {
		b = append(b, 0x00, 0x1C) // float16 0x1C00 = 1/256
		for range 32 {
			b = append(b, byte(r.IntN(256)))
		}
	}
	return b
}

// tinyTensors are the tensors of a model of shape c: the llama2.c weights w
// as float32 (q8 false), or random Q8_0 matrices and float32 gains.
func tinyTensors(c Config, w *Weights, r *rand.Rand, q8 bool) []ggufwrite.TensorData {
	d, h, kv := c.Dim, c.HiddenDim, c.KVDim()
	mat := func(name string, rows, cols int, data []float32) ggufwrite.TensorData {
		if q8 {
			return ggufwrite.TensorData{Name: name, Dims: []int64{int64(cols), int64(rows)}, Type: gguf.Q8_0, Data: q8Bytes(r, rows, cols)}
		}
		return ggufwrite.TensorData{Name: name, Dims: []int64{int64(cols), int64(rows)}, Type: gguf.F32, Data: f32Bytes(data)}
	}
	gain := func(name string, data []float32) ggufwrite.TensorData {
		return ggufwrite.TensorData{Name: name, Dims: []int64{int64(len(data))}, Type: gguf.F32, Data: f32Bytes(data)}
	}
	ts := []ggufwrite.TensorData{mat("token_embd.weight", c.VocabSize, d, w.TokenEmbedding), gain("output_norm.weight", w.RMSFinal)}
	for l := range c.NLayers {
		name := func(s string) string { return fmt.Sprintf("blk.%d.%s.weight", l, s) }
		ts = append(ts,
			gain(name("attn_norm"), w.RMSAtt[l*d:(l+1)*d]), gain(name("ffn_norm"), w.RMSFFN[l*d:(l+1)*d]),
			mat(name("attn_q"), d, d, w.Wq[l*d*d:(l+1)*d*d]), mat(name("attn_k"), kv, d, w.Wk[l*kv*d:(l+1)*kv*d]),
			mat(name("attn_v"), kv, d, w.Wv[l*kv*d:(l+1)*kv*d]), mat(name("attn_output"), d, d, w.Wo[l*d*d:(l+1)*d*d]),
			mat(name("ffn_gate"), h, d, w.W1[l*h*d:(l+1)*h*d]), mat(name("ffn_down"), d, h, w.W2[l*d*h:(l+1)*d*h]),
			mat(name("ffn_up"), h, d, w.W3[l*h*d:(l+1)*h*d]))
	}
	return ts
}

// randomWeights fills weights of shape c with small random numbers.
func randomWeights(t *testing.T, c Config, r *rand.Rand) *Weights {
	t.Helper()
	w, err := NewWeights(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, nt := range w.Tensors(c) {
		for i := range nt.Data {
			nt.Data[i] = float32(r.NormFloat64() * 0.2)
		}
	}
	return w
}

// writeGGUF writes a GGUF file in a test's folder and returns its path.
func writeGGUF(t *testing.T, meta []ggufwrite.KeyValue, tensors []ggufwrite.TensorData) string {
	t.Helper()
	var b bytes.Buffer
	if err := ggufwrite.Write(&b, 3, meta, tensors); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "model.gguf")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGGUFFloat32IsTheLlama2cModel: the same float32 weights, read from a
// GGUF file or held as a llama2.c model, give the same logits in run.c's
// arithmetic, bit for bit,
// decoding and in a batch; and the file's tokenizer works.
func TestGGUFFloat32IsTheLlama2cModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	c := tinyShape
	w := randomWeights(t, c, r)
	path := writeGGUF(t, append(llamaMeta(c), spmVocab()...), tinyTensors(c, w, r, false))
	g, tok, err := loadGGUFWithTokenizer(path)
	if err != nil {
		t.Fatal(err)
	}
	// A GGUF model computes as llama.cpp does (f16 keys and values...); in
	// run.c's arithmetic it must be the llama2.c model exactly.
	g.Matrices.Arithmetic = RunC
	ref := mustModel(c, w, "llama2.c")
	gc := g.Config
	gc.RopeTheta, gc.NormEps = 0, 0
	if gc != c {
		t.Fatalf("GGUF config %v; want %v", g.Config, c)
	}
	ids, err := tok.Encode("héllo", true, false)
	if err != nil {
		t.Fatal(err)
	}
	// SentencePiece puts "▁" (E2 96 81) before the text; each byte is
	// its own token, 3 on from its value.
	if want := []int{1, 3 + 0xE2, 3 + 0x96, 3 + 0x81, 3 + 'h', 3 + 0xC3, 3 + 0xA9, 3 + 'l', 3 + 'l', 3 + 'o'}; !slices.Equal(ids, want) {
		t.Errorf("Encode(héllo) = %v; want BOS and byte tokens %v", ids, want)
	}
	a, b := g.NewState(), ref.NewState()
	for pos, id := range ids {
		la, err := a.Forward(id, pos)
		if err != nil {
			t.Fatal(err)
		}
		lb, err := b.Forward(id, pos)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(la, lb) {
			t.Fatalf("position %d: GGUF logits differ from the llama2.c model's", pos)
		}
	}
	batch, err := g.NewState().PrefillAll(ids, 0)
	if err != nil {
		t.Fatal(err)
	}
	refBatch, err := ref.NewState().PrefillAll(ids, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range batch {
		if !slices.Equal(batch[i], refBatch[i]) {
			t.Fatalf("prefill position %d: GGUF logits differ from the llama2.c model's", i)
		}
	}
}

// TestGGUFQuantizedCachedIsUncached: a model of Q8_0 matrices gives the same
// logits decoding one token at a time (with the cache) as in one batch, and
// as close to its dequantized weights as 8-bit activations allow.
func TestGGUFQuantizedCachedIsUncached(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	c := tinyShape
	w := randomWeights(t, c, r)
	path := writeGGUF(t, append(llamaMeta(c), spmVocab()...), tinyTensors(c, w, r, true))
	m, _, err := loadGGUFWithTokenizer(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Matrices.Layers[1].W2.Type(); got != gguf.Q8_0 {
		t.Fatalf("ffn_down is %v; want Q8_0", got)
	}
	ids := []int{1, 50, 60, 70, 80, 90, 100, 110}
	batch, err := m.NewState().PrefillAll(ids, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	exact := dequantized(t, m).NewState()
	worst := 0.0
	for pos, id := range ids {
		logits, err := s.Forward(id, pos)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(logits, batch[pos]) {
			t.Errorf("position %d: decoding and prefill give different logits", pos)
		}
		want, err := exact.Forward(id, pos)
		if err != nil {
			t.Fatal(err)
		}
		scale := 0.0
		for _, v := range want {
			scale = max(scale, math.Abs(float64(v)))
		}
		for i := range want {
			worst = max(worst, math.Abs(float64(logits[i]-want[i]))/scale)
		}
	}
	if worst > 0.05 {
		t.Errorf("quantized logits differ from the dequantized model's by %.4f of the largest logit; want at most 0.05", worst)
	}
}

// TestGGUFRefusesBadModels: each kind of bad model file gets an error that
// names the file and the problem.
func TestGGUFRefusesBadModels(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	c := tinyShape
	w := randomWeights(t, c, r)
	good := func() ([]ggufwrite.KeyValue, []ggufwrite.TensorData) {
		return append(llamaMeta(c), spmVocab()...), tinyTensors(c, w, r, false)
	}
	set := func(meta []ggufwrite.KeyValue, key string, v ggufwrite.Value) []ggufwrite.KeyValue {
		for i := range meta {
			if meta[i].Key == key {
				meta[i].Value = v
				return meta
			}
		}
		return append(meta, ggufwrite.KeyValue{Key: key, Value: v})
	}
	drop := func(meta []ggufwrite.KeyValue, key string) []ggufwrite.KeyValue {
		return slices.DeleteFunc(meta, func(kv ggufwrite.KeyValue) bool { return kv.Key == key })
	}
	tensor := func(ts []ggufwrite.TensorData, name string) *ggufwrite.TensorData {
		for i := range ts {
			if ts[i].Name == name {
				return &ts[i]
			}
		}
		t.Fatalf("no tensor %s", name)
		return nil
	}
	for _, bad := range []struct {
		name string
		edit func(meta []ggufwrite.KeyValue, ts []ggufwrite.TensorData) ([]ggufwrite.KeyValue, []ggufwrite.TensorData)
		says string
	}{
		{"another architecture", func(m []ggufwrite.KeyValue, ts []ggufwrite.TensorData) ([]ggufwrite.KeyValue, []ggufwrite.TensorData) {
			return set(m, "general.architecture", ggufwrite.StringValue("mamba")), ts
		}, `architecture is "mamba"`},
		{"a missing tensor", func(m []ggufwrite.KeyValue, ts []ggufwrite.TensorData) ([]ggufwrite.KeyValue, []ggufwrite.TensorData) {
			return m, slices.DeleteFunc(ts, func(t ggufwrite.TensorData) bool { return t.Name == "blk.1.ffn_up.weight" })
		}, "no tensor blk.1.ffn_up.weight"},
		{"a misshapen tensor", func(m []ggufwrite.KeyValue, ts []ggufwrite.TensorData) ([]ggufwrite.KeyValue, []ggufwrite.TensorData) {
			tq := tensor(ts, "blk.0.attn_k.weight")
			tq.Dims = []int64{32, 64}
			tq.Data = tq.Data[:32*64*4]
			return m, ts
		}, "tensor blk.0.attn_k.weight has dimensions [32 64]; the model's shape needs [64 32]"},
		{"a type the engine does not compute with", func(m []ggufwrite.KeyValue, ts []ggufwrite.TensorData) ([]ggufwrite.KeyValue, []ggufwrite.TensorData) {
			tq := tensor(ts, "blk.0.attn_q.weight")
			tq.Type, tq.Data = gguf.Q5_0, make([]byte, 64*64/32*22)
			return m, ts
		}, "Q5_0"},
		{"a vocabulary that disagrees with the tensors", func(m []ggufwrite.KeyValue, ts []ggufwrite.TensorData) ([]ggufwrite.KeyValue, []ggufwrite.TensorData) {
			tok := []string{"<unk>", "<s>", "</s>"}
			for b := range 255 {
				tok = append(tok, fmt.Sprintf("<0x%02X>", b))
			}
			m = set(m, "tokenizer.ggml.tokens", ggufwrite.StringsValue(tok))
			m = set(m, "tokenizer.ggml.token_type", ggufwrite.Int32sValue(append([]int32{2, 3, 3}, slices.Repeat([]int32{6}, 255)...)))
			return set(m, "tokenizer.ggml.scores", ggufwrite.Float32sValue(make([]float32, 258))), ts
		}, "the tokenizer has 258 tokens but token_embd.weight has 259 rows"},
		{"no tokenizer", func(m []ggufwrite.KeyValue, ts []ggufwrite.TensorData) ([]ggufwrite.KeyValue, []ggufwrite.TensorData) {
			return drop(m, "tokenizer.ggml.tokens"), ts
		}, "tokenizer.ggml.tokens"},
		{"merges that name unknown tokens", func(m []ggufwrite.KeyValue, ts []ggufwrite.TensorData) ([]ggufwrite.KeyValue, []ggufwrite.TensorData) {
			m = set(m, "tokenizer.ggml.model", ggufwrite.StringValue("gpt2"))
			return set(m, "tokenizer.ggml.merges", ggufwrite.StringsValue([]string{"zz qq"})), ts
		}, "zz"},
		{"scaled rotary embeddings", func(m []ggufwrite.KeyValue, ts []ggufwrite.TensorData) ([]ggufwrite.KeyValue, []ggufwrite.TensorData) {
			return set(m, "llama.rope.scaling.type", ggufwrite.StringValue("yarn")), ts
		}, `llama.rope.scaling.type = "yarn"`},
		{"an absurd shape", func(m []ggufwrite.KeyValue, ts []ggufwrite.TensorData) ([]ggufwrite.KeyValue, []ggufwrite.TensorData) {
			return set(m, "llama.block_count", ggufwrite.Uint64Value(1<<40)), ts
		}, "llama.block_count"},
		{"a NaN gain", func(m []ggufwrite.KeyValue, ts []ggufwrite.TensorData) ([]ggufwrite.KeyValue, []ggufwrite.TensorData) {
			g := tensor(ts, "blk.1.ffn_norm.weight")
			g.Data = slices.Clone(g.Data)
			binary.LittleEndian.PutUint32(g.Data[8:], math.Float32bits(float32(math.NaN())))
			return m, ts
		}, "blk.1.ffn_norm.weight[2] is NaN"},
	} {
		t.Run(bad.name, func(t *testing.T) {
			meta, ts := good()
			meta, ts = bad.edit(meta, ts)
			path := writeGGUF(t, meta, ts)
			_, _, err := loadGGUFWithTokenizer(path)
			if err == nil || !strings.Contains(err.Error(), bad.says) || !strings.Contains(err.Error(), path) {
				t.Errorf("LoadGGUF: %v; want an error naming %s and saying %q", err, path, bad.says)
			}
			if _, err := LoadModel(path); err == nil && bad.says != "tokenizer.ggml.tokens" && !strings.Contains(bad.name, "vocabulary") && !strings.Contains(bad.name, "merges") {
				t.Errorf("LoadModel accepted it")
			}
		})
	}
	t.Run("a truncated file", func(t *testing.T) {
		meta, ts := good()
		path := writeGGUF(t, meta, ts)
		data, _ := os.ReadFile(path)
		if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := loadGGUFWithTokenizer(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("LoadGGUF of half a file: %v; want an error naming it", err)
		}
	})
}

// FuzzLoadGGUF: whatever the bytes of a model file, LoadGGUF returns a model
// that runs or an error; it never panics.
func FuzzLoadGGUF(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 8))
	c := Config{Dim: 32, HiddenDim: 32, NLayers: 1, NHeads: 2, NKVHeads: 1, VocabSize: 259, SeqLen: 8, SharedClassifier: true}
	w, err := NewWeights(c)
	if err != nil {
		f.Fatal(err)
	}
	for _, q8 := range []bool{false, true} {
		var b bytes.Buffer
		if err := ggufwrite.Write(&b, 3, append(llamaMeta(c), spmVocab()...), tinyTensors(c, w, r, q8)); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "m.gguf")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, tok, err := loadGGUFWithTokenizer(path)
		if err != nil {
			return
		}
		if m.Config.NLayers*m.Config.Dim*m.Config.SeqLen > 1<<22 {
			return // a shape too large to run here
		}
		ids, err := tok.Encode("ab", true, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) > 0 {
			m.NewState().Forward(ids[0], 0)
		}
	})
}

// TestGGUFPrefillAfterCachedPositions: in llama.cpp's arithmetic, whose cache
// holds two f16 numbers a word, a batch that starts after more positions
// than it holds (a verification pass of speculative decoding, a text scored
// in chunks) gives the logits of the same tokens decoded one at a time.
func TestGGUFPrefillAfterCachedPositions(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	c := tinyShape
	path := writeGGUF(t, append(llamaMeta(c), spmVocab()...), tinyTensors(c, randomWeights(t, c, r), r, false))
	m, _, err := loadGGUFWithTokenizer(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.Matrices.Arithmetic != LlamaCpp {
		t.Fatalf("a GGUF model computes in %v; want %v", m.Matrices.Arithmetic, LlamaCpp)
	}
	ids := []int{1, 5, 9, 13, 17, 21, 25, 29, 33, 37}
	one := m.NewState()
	var want [][]float32
	for pos, id := range ids {
		l, err := one.Forward(id, pos)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, slices.Clone(l))
	}
	st := m.NewState()
	if _, err := st.Prefill(ids[:8], 0); err != nil {
		t.Fatal(err)
	}
	rows, err := st.PrefillAll(ids[8:], 8)
	if err != nil {
		t.Fatalf("PrefillAll(2 tokens at position 8) after 8 cached positions: %v", err)
	}
	for i, row := range rows {
		for id := range row {
			if d := math.Abs(float64(row[id] - want[8+i][id])); d > 1e-4 {
				t.Fatalf("position %d, token %d: batched logit %v, one at a time %v", 8+i, id, row[id], want[8+i][id])
			}
		}
	}
}
