package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// The reference fixtures live beside the project checkout, in
// ../shared/models, and are never copied into the tree. When that folder is
// present (as in CI) the tests below must run.
func referencePaths(t testing.TB) (model, tokenizer string) {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "models")
	model = filepath.Join(dir, "stories260K.bin")
	tokenizer = filepath.Join(dir, "tok512.bin")
	if _, err := os.Stat(model); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("reference model missing in CI: %v", err)
		}
		t.Skipf("reference model not present: %v", err)
	}
	return model, tokenizer
}

func loadReference(t testing.TB) (*Model, *Tokenizer) {
	mp, tp := referencePaths(t)
	m, err := LoadModel(mp)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := LoadTokenizer(tp, m.Config.VocabSize)
	if err != nil {
		t.Fatal(err)
	}
	return m, tok
}
