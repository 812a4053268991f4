package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
)

// runGenerate runs the command in-process and returns its status, stdout
// and stderr.
func runGenerate(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	status := run(args, &out, &errOut)
	return status, out.String(), errOut.String()
}

func TestSearchDecodersKeepGreedyText(t *testing.T) {
	model, tokenizer := referenceModel(t)
	base := []string{"-model", model, "-tokenizer", tokenizer, "-prompt", "Once upon a time", "-temperature", "0", "-repeat-penalty", "1", "-n", "80"}
	status, want, stderr := runGenerate(base...)
	if status != 0 {
		t.Fatalf("plain greedy: status %d, stderr %q", status, stderr)
	}
	for _, extra := range [][]string{
		{"-no-cache"},
		{"-draft", model, "-speculate", "3"},
		{"-draft", model},
		{"-beam", "1"},
	} {
		status, got, stderr := runGenerate(append(append([]string(nil), base...), extra...)...)
		if status != 0 || got != want {
			t.Errorf("%v: status %d, stderr %q\n got %q\nwant %q", extra, status, stderr, got, want)
		}
	}
}

func TestSearchFlagsRejectedBeforeWork(t *testing.T) {
	model, tokenizer := referenceModel(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-beam", "-1"}, "-beam = -1: beam width must be at least 1"},
		{[]string{"-draft", model, "-speculate", "-2"}, "-speculate = -2: the draft must propose at least 1 token per round"},
		{[]string{"-speculate", "3"}, "-speculate = 3 needs -draft"},
		{[]string{"-beam", "2", "-no-cache"}, "use one at a time"},
		{[]string{"-draft", model, "-temperature", "1", "-topp", "0.5"}, "-topp = 0.5: speculative decoding samples the target's whole tempered distribution"},
		{[]string{"-draft", model, "-temperature", "0", "-repeat-penalty", "1.2"}, "-repeat-penalty = 1.2: speculative decoding samples the target's whole tempered distribution"},
	} {
		status, _, stderr := runGenerate(append([]string{"-model", model, "-tokenizer", tokenizer}, c.args...)...)
		if status != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: status %d, stderr %q; want status 2 and %q", c.args, status, stderr, c.want)
		}
	}
	// A draft with another vocabulary is refused before generating.
	c := engine.Config{Dim: 16, HiddenDim: 32, NLayers: 1, NHeads: 2, NKVHeads: 2, VocabSize: 300, SeqLen: 32, SharedClassifier: true}
	other := filepath.Join(t.TempDir(), "draft.bin")
	w, err := engine.NewWeights(c)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := engine.NewModel(c, w); err != nil {
		t.Fatal(err)
	} else if err := m.Save(other); err != nil {
		t.Fatal(err)
	}
	status, out, stderr := runGenerate("-model", model, "-tokenizer", tokenizer, "-draft", other, "-temperature", "0")
	if status != 1 || out != "" || !strings.Contains(stderr, "its vocabulary has 300 tokens but the model's has 512") {
		t.Errorf("draft with another vocabulary: status %d, stdout %q, stderr %q", status, out, stderr)
	}
	// So is a prompt longer than the context.
	long := strings.Repeat("word ", 600)
	status, _, stderr = runGenerate("-model", model, "-tokenizer", tokenizer, "-draft", model, "-temperature", "0", "-prompt", long)
	if status != 1 || !strings.Contains(stderr, "no room to generate") {
		t.Errorf("prompt longer than the context: status %d, stderr %q", status, stderr)
	}
}

func TestDefaultModelsNeedNoFiles(t *testing.T) {
	status, out, stderr := runGenerate("-prompt", "func main() {", "-n", "12", "-temperature", "0", "-repeat-penalty", "1")
	if status != 0 || out == "" {
		t.Fatalf("built-in model: status %d, stdout %q, stderr %q", status, out, stderr)
	}
	if !strings.HasPrefix(out, "func main() {") {
		t.Fatalf("text mode should start with the prompt, got %q", out)
	}
	// Speculative decoding with the built-in draft keeps the target's
	// greedy text.
	status, spec, stderr := runGenerate("-prompt", "func main() {", "-n", "12", "-temperature", "0", "-repeat-penalty", "1", "-draft", "default")
	if status != 0 || spec != out {
		t.Fatalf("built-in draft: status %d, stderr %q\n got %q\nwant %q", status, stderr, spec, out)
	}
}

func TestDraftWithAnotherTokenizerIsRefused(t *testing.T) {
	model, tokenizer := referenceModel(t)
	// The same weights as the target, but a tokenizer.bin beside them
	// whose tokens differ: the draft would propose ids that mean something
	// else to the target.
	m, err := engine.LoadModel(model)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := engine.LoadTokenizer(tokenizer, m.Config.VocabSize)
	if err != nil {
		t.Fatal(err)
	}
	pieces, scores := make([]string, tok.VocabSize()), make([]float32, tok.VocabSize())
	for id := range pieces {
		pieces[id], scores[id] = tok.Piece(id), tok.Score(id)
	}
	pieces[400] = "zzz-not-the-same"
	other, err := engine.NewTokenizer(pieces, scores, 0)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := m.Save(filepath.Join(dir, "draft.bin")); err != nil {
		t.Fatal(err)
	}
	if err := other.Save(filepath.Join(dir, "tokenizer.bin")); err != nil {
		t.Fatal(err)
	}
	status, out, stderr := runGenerate("-model", model, "-tokenizer", tokenizer, "-draft", filepath.Join(dir, "draft.bin"), "-temperature", "0")
	if status != 1 || out != "" || !strings.Contains(stderr, "its tokenizer differs from the model's at token 400") {
		t.Errorf("status %d, stdout %q, stderr %q", status, out, stderr)
	}
}
