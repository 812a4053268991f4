package decoding

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
)

// The models and tokenizers the decoding tests run on: the course's
// (read from engine/models, which imports nothing of this package but
// whose package is loaded by name elsewhere), SmolLM2, and small ones
// made here.

// courseModel is engine/models' Default.
func courseModel() (*engine.Model, *engine.Tokenizer, error) { return courseFile("target.bin") }

// courseDraft is engine/models' Draft.
func courseDraft() (*engine.Model, *engine.Tokenizer, error) { return courseFile("draft.bin") }

func courseFile(name string) (*engine.Model, *engine.Tokenizer, error) {
	dir := filepath.Join("..", "models")
	m, err := engine.LoadModel(filepath.Join(dir, name))
	if err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile(filepath.Join(dir, "tokenizer.bin"))
	if err != nil {
		return nil, nil, err
	}
	tok, err := engine.ParseTokenizer(data, m.Config.VocabSize)
	if err != nil {
		return nil, nil, err
	}
	m.Name = name
	return m, tok, nil
}

// loadGGUFWithTokenizer loads a GGUF model file and its tokenizer.
func loadGGUFWithTokenizer(path string) (*engine.Model, *engine.Tokenizer, error) {
	return engine.Load(path, "")
}

// smolLM2 is SmolLM2-135M-Instruct, where the install step put it.
func smolLM2(t testing.TB) (*engine.Model, *engine.Tokenizer) {
	t.Helper()
	m, tok, err := engine.Load(testmodel.Path(t, testmodel.SmolLM2), "")
	if err != nil {
		t.Fatal(err)
	}
	return m, tok
}

// randomModel builds a small model with random weights, for tests that need
// a real forward pass but no particular behaviour.
func randomModel(c engine.Config, seed uint64) *engine.Model {
	r := rand.New(rand.NewPCG(seed, 1))
	w := mustWeights(c)
	for _, t := range w.Tensors(c) {
		for i := range t.Data {
			t.Data[i] = float32(r.NormFloat64() * 0.5)
		}
	}
	return mustModel(c, w, "random")
}

// noisyModel builds a model of shape c with normally distributed weights of
// the given standard deviation and unit norm gains.
func noisyModel(c engine.Config, seed uint64, std float64) *engine.Model {
	r := rand.New(rand.NewPCG(seed, 7))
	w := mustWeights(c)
	for _, t := range w.Tensors(c) {
		for i := range t.Data {
			t.Data[i] = float32(r.NormFloat64() * std)
		}
	}
	for _, g := range [][]float32{w.RMSAtt, w.RMSFFN, w.RMSFinal} {
		for i := range g {
			g[i] = 1
		}
	}
	return mustModel(c, w, "noisy")
}

// mustWeights is engine.NewWeights for shapes the tests know to be valid.
func mustWeights(c engine.Config) *engine.Weights {
	w, err := engine.NewWeights(c)
	if err != nil {
		panic(err)
	}
	return w
}

// mustModel is engine.NewModel, named, for weights the tests know fit c.
func mustModel(c engine.Config, w *engine.Weights, name string) *engine.Model {
	m, err := engine.NewModel(c, w)
	if err != nil {
		panic(err)
	}
	m.Name = name
	return m
}

// encodeModel is m as a llama2.c checkpoint's bytes.
func encodeModel(t testing.TB, m *engine.Model) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// byteTokenizer builds a llama2.c-style vocabulary: <unk>, <s>, </s>, the
// 256 byte tokens, then the given pieces with decreasing merge scores.
func byteTokenizer(pieces ...string) *engine.Tokenizer {
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
	t, err := engine.NewTokenizer(all, scores, 0)
	if err != nil {
		panic(err)
	}
	return t
}

func byteName(b byte) string {
	const hex = "0123456789ABCDEF"
	return "<0x" + string(hex[b>>4]) + string(hex[b&15]) + ">"
}

// rmsEps is the RMSNorm epsilon of a llama2.c model.
const rmsEps = 1e-5
