package engine

import (
	_ "embed"
	"fmt"
)

// The course's own models, trained from scratch on the Go standard library
// source with engine/cmd/train and embedded in every program that uses the
// engine, so generation works with no download. See models/MODEL_CARD.md.
var (
	//go:embed models/target.bin
	defaultTarget []byte
	//go:embed models/draft.bin
	defaultDraft []byte
	//go:embed models/tokenizer.bin
	defaultTokenizer []byte
)

// Default returns the embedded target model and its tokenizer: the best
// model the course trains. Each call returns a fresh copy, so callers may
// change the weights without affecting each other.
func Default() (*Model, *Tokenizer, error) {
	return loadEmbedded("default", defaultTarget)
}

// DefaultDraft returns the embedded draft model, a much smaller model with
// the same tokenizer as Default, meant to propose tokens for speculative
// decoding.
func DefaultDraft() (*Model, *Tokenizer, error) {
	return loadEmbedded("default-draft", defaultDraft)
}

func loadEmbedded(name string, model []byte) (*Model, *Tokenizer, error) {
	m, err := ParseModel(model)
	if err != nil {
		return nil, nil, fmt.Errorf("embedded model %s: %w", name, err)
	}
	m.Name = name
	tok, err := ParseTokenizer(defaultTokenizer, m.Config.VocabSize)
	if err != nil {
		return nil, nil, fmt.Errorf("embedded tokenizer: %w", err)
	}
	return m, tok, nil
}
