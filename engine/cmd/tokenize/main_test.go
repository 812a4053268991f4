package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine/internal/testmodel"
)

func tokenize(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(args, &out, &errOut)
	return out.String(), err
}

// TestSmolLM2: ids as llama.cpp gives them (testdata/llamacpp), special
// tokens read as tokens or as text.
func TestSmolLM2(t *testing.T) {
	testmodel.Path(t, testmodel.SmolLM2)
	root, err := testmodel.Root()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-model", "smollm2", "The capital of France is"}, "504\t\"The\"\n3575\t\" capital\"\n282\t\" of\"\n4649\t\" France\"\n314\t\" is\"\n"},
		{[]string{"-model", "smollm2", "-json", "<|im_start|>user"}, "[1,4093]\n"},
		{[]string{"-model", "smollm2", "-json", "-special=false", "<|im_start|>user"}, "[44,108,306,79,3738,108,46,4093]\n"},
		{[]string{"-model", "smollm2", "-json", ""}, "[]\n"},
	} {
		got, err := tokenize(t, c.args...)
		if err != nil || got != c.want {
			t.Errorf("tokenize %q = %q, %v; want %q", c.args, got, err, c.want)
		}
	}
}

func TestBuiltInAndBadInput(t *testing.T) {
	got, err := tokenize(t, "-json", "func main() {")
	if err != nil || got != "[1,853,583,361,418,375]\n" {
		t.Errorf("built-in model: %q, %v", got, err)
	}
	if _, err := tokenize(t); err == nil || !strings.Contains(err.Error(), "want one TEXT") {
		t.Errorf("no text: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.gguf")
	os.WriteFile(bad, []byte("GGUF\x03\x00\x00\x00"), 0o644)
	if _, err := tokenize(t, "-model", bad, "x"); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("a truncated GGUF file: %v; want an error naming it", err)
	}
}
