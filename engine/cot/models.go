package cot

import (
	_ "embed"
	"fmt"

	"github.com/tokenbytoken/course/engine"
)

// The two models, trained by go run ./engine/cmd/cot (see Presets) and
// built into every program that imports this package.
var (
	//go:embed models/direct.bin
	directModel []byte
	//go:embed models/steps.bin
	stepsModel []byte
	//go:embed models/tokenizer.bin
	tokenizerFile []byte
)

// Load returns the embedded model trained on format f, and the tokenizer
// both models share. Each call returns a fresh copy.
func Load(f Format) (*engine.Model, *engine.Tokenizer, error) {
	var data []byte
	switch f {
	case Direct:
		data = directModel
	case Steps:
		data = stepsModel
	default:
		return nil, nil, fmt.Errorf("no model for %v: the formats are direct and steps", f)
	}
	m, err := engine.ParseModel(data)
	if err != nil {
		return nil, nil, fmt.Errorf("embedded %s model: %w", f, err)
	}
	m.Name = "cot-" + f.String()
	tok, err := engine.ParseTokenizer(tokenizerFile, m.Config.VocabSize)
	if err != nil {
		return nil, nil, fmt.Errorf("embedded tokenizer of the %s model: %w", f, err)
	}
	return m, tok, nil
}

// MustLoad is Load for notebooks and examples: it panics on an error,
// which can only mean the embedded files are damaged.
func MustLoad(f Format) (*engine.Model, *engine.Tokenizer) {
	m, tok, err := Load(f)
	if err != nil {
		panic(err)
	}
	return m, tok
}
