package models

import (
	"strings"
	"testing"
)

// TestLoadByName: each name loads its model, with a tokenizer of the
// model's vocabulary; a name with a tokenizer, and a path that is not
// there, are errors that say so.
func TestLoadByName(t *testing.T) {
	for _, name := range []string{"", "default", "draft"} {
		m, tok, err := Load(name, "")
		if err != nil {
			t.Fatalf("Load(%q): %v", name, err)
		}
		if tok.VocabSize() != m.Config.VocabSize {
			t.Errorf("Load(%q): tokenizer of %d tokens for a model of %d", name, tok.VocabSize(), m.Config.VocabSize)
		}
	}
	target, _, _ := Default()
	draft, _, _ := Draft()
	if draft.Config.NumParams() >= target.Config.NumParams() {
		t.Errorf("the draft (%d parameters) is not smaller than the target (%d)", draft.Config.NumParams(), target.Config.NumParams())
	}
	if _, _, err := Load("default", "tokenizer.bin"); err == nil || !strings.Contains(err.Error(), "own tokenizer") {
		t.Errorf(`Load("default", "tokenizer.bin"): %v; want an error about its own tokenizer`, err)
	}
	if _, _, err := Load("no/such/model.gguf", ""); err == nil || !strings.Contains(err.Error(), "no/such/model.gguf") {
		t.Errorf(`Load("no/such/model.gguf"): %v; want an error naming the path`, err)
	}
	// A llama2.c checkpoint by its path, with the tokenizer beside it.
	m, tok, err := Load("target.bin", "")
	if err != nil || m.Config != target.Config || tok == nil {
		t.Errorf(`Load("target.bin") = %v, %v; want the default model's shape with its tokenizer`, m, err)
	}
}

// TestSmolLM2Missing: without the file, the error says how to install it.
func TestSmolLM2Missing(t *testing.T) {
	t.Setenv("TOKENBYTOKEN_SMOLLM2", "")
	t.Chdir(t.TempDir())
	_, _, err := SmolLM2()
	if err == nil || !strings.Contains(err.Error(), "make install") {
		t.Errorf("SmolLM2() outside the course: %v; want an error saying to run make install", err)
	}
}
