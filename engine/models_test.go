package engine

import (
	"fmt"
	"os"

	"github.com/tokenbytoken/course/engine/internal/testmodel"
)

// The course's models, for the engine's own tests: package engine/models
// embeds them for everyone else, but it imports this package, so these
// tests read its files.

// courseModel is engine/models' Default.
func courseModel() (*Model, *Tokenizer, error) { return courseFile("target.bin") }

// courseDraft is engine/models' Draft.
func courseDraft() (*Model, *Tokenizer, error) { return courseFile("draft.bin") }

func courseFile(name string) (*Model, *Tokenizer, error) {
	m, err := LoadModel("models/" + name)
	if err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile("models/tokenizer.bin")
	if err != nil {
		return nil, nil, err
	}
	tok, err := ParseTokenizer(data, m.Config.VocabSize)
	if err != nil {
		return nil, nil, err
	}
	m.Name = name
	return m, tok, nil
}

// smolLM2 is engine/models' SmolLM2, from where the install step put it.
func smolLM2() (*Model, *Tokenizer, error) {
	root, err := testmodel.Root()
	if err != nil {
		return nil, nil, err
	}
	path := root + "/" + testmodel.SmolLM2
	if _, err := os.Stat(path); err != nil {
		return nil, nil, fmt.Errorf("SmolLM2 is not installed (make install): %w", err)
	}
	return loadGGUFWithTokenizer(path)
}
