package engine

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tokenbytoken/course/engine/gguf"
	"github.com/tokenbytoken/course/engine/internal/regular"
)

// loadGGUFWithTokenizer reads a model and its tokenizer from a GGUF file,
// mapped (see modelFromGGUF and TokenizerFromGGUF), and checks that they
// agree on the vocabulary.
func loadGGUFWithTokenizer(path string) (*Model, *Tokenizer, error) {
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
// file (see modelFromGGUF), told apart by the GGUF file's magic number. A
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

// Load reads a model and its tokenizer from files:
//   - a GGUF file, which holds its tokenizer;
//   - a llama2.c checkpoint, with the llama2.c tokenizer.bin at
//     tokenizerPath, or beside the checkpoint when tokenizerPath is "".
//
// tokenizerPath goes only with a llama2.c checkpoint. The course's own
// models, by name, come from package engine/models.
func Load(model, tokenizerPath string) (*Model, *Tokenizer, error) {
	if gguf.HasMagic(model) {
		if tokenizerPath != "" {
			return nil, nil, fmt.Errorf("%s is a GGUF file, which holds its own tokenizer; %s is not used with it", model, tokenizerPath)
		}
		return loadGGUFWithTokenizer(model)
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
