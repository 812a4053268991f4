package decoding

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
)

// The reference fixtures live beside the project checkout, in
// ../shared/models, and are never copied into the tree. When that folder is
// present (as in CI) the tests below must run.
func referencePaths(t testing.TB) (model, tokenizer string) {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "models")
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

func loadReference(t testing.TB) (*engine.Model, *engine.Tokenizer) {
	mp, tp := referencePaths(t)
	m, err := engine.LoadModel(mp)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := engine.LoadTokenizer(tp, m.Config.VocabSize)
	if err != nil {
		t.Fatal(err)
	}
	return m, tok
}

// publishedGreedy is the text the original C implementation prints for
// stories260K, greedy, empty prompt, the first 256 positions.
const publishedGreedy = `Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day, she saw a big, red ball. She wanted to play with it, but it was too high.
Lily's mom said, "Lily, let's go to the park." Lily was sad and didn't know what to do. She said, "I want to play with your ball, but I can't find it."
Lily was sad and didn't know what to do. She said, "I'm sorry, Lily. I didn't know what to do."
Lily didn't want to help her mom, so she said, "I'm sorry, mom. I didn't know what to do." Her mom said, "Don't worry, Lily. We can help you.`

func TestReferenceGreedyMatchesPublishedText(t *testing.T) {
	m, tok := loadReference(t)
	var sb strings.Builder
	n := 0
	for step, err := range Generate(context.Background(), m, tok, "", Options{MaxNewTokens: 256}) {
		if err != nil {
			t.Fatal(err)
		}
		sb.WriteString(step.Text)
		n++
	}
	got := sb.String()
	if got != publishedGreedy {
		t.Fatalf("greedy output differs from the published text after %d tokens.\n got: %q\nwant: %q", n, got, publishedGreedy)
	}
}
