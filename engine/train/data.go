package train

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/atomicfile"
	"github.com/tokenbytoken/course/engine/internal/memory"
	"github.com/tokenbytoken/course/engine/internal/regular"
)

// Data is a corpus turned into token ids: one stream for training and one
// for validation. Each document (see Segments) is BOS, its tokens, EOS.
type Data struct {
	Train, Val           []uint16
	TrainBytes, ValBytes int64 // bytes of text behind each stream
	VocabSize            int
}

// ValTokensPerByte converts a loss per token into a loss per byte of text.
func (d *Data) ValTokensPerByte() float64 {
	n := 0
	for _, t := range d.Val {
		if t > 2 { // BOS and EOS stand for no text
			n++
		}
	}
	return float64(n) / float64(d.ValBytes)
}

// Tokenize encodes the corpus with the tokenizer, file by file and segment
// by segment.
func Tokenize(c *Corpus, tok *engine.Tokenizer) (*Data, error) {
	return TokenizeContext(context.Background(), c, tok)
}

// TokenizeContext is Tokenize that stops, with an error wrapping
// ErrInterrupted, soon after ctx is done (see EncodeDocumentsContext).
func TokenizeContext(ctx context.Context, c *Corpus, tok *engine.Tokenizer) (*Data, error) {
	if c == nil || tok == nil {
		return nil, errors.New("tokenize: no corpus or no tokenizer")
	}
	if tok.VocabSize() > maxVocabSize {
		return nil, fmt.Errorf("vocabulary of %d tokens does not fit 16-bit ids", tok.VocabSize())
	}
	enc := NewEncoder(tok)
	docs := func(srcs []Source) []string {
		var out []string
		for _, s := range srcs {
			out = append(out, Segments(s.Text)...)
		}
		return out
	}
	train, err := enc.EncodeDocumentsContext(ctx, docs(c.Train))
	if err != nil {
		return nil, fmt.Errorf("encoding training text: %w", err)
	}
	val, err := enc.EncodeDocumentsContext(ctx, docs(c.Val))
	if err != nil {
		return nil, fmt.Errorf("encoding validation text: %w", err)
	}
	tb, vb := c.Bytes()
	return &Data{Train: train, Val: val, TrainBytes: tb, ValBytes: vb, VocabSize: tok.VocabSize()}, nil
}

// dataMagic starts a token cache file.
const dataMagic = "TBTDATA1"

type dataHeader struct {
	TrainTokens, ValTokens int
	TrainBytes, ValBytes   int64
	VocabSize              int
}

// Save writes the token streams to path atomically, so that a resumed run
// does not have to encode the corpus again.
func (d *Data) Save(path string) error {
	js, _ := json.Marshal(dataHeader{len(d.Train), len(d.Val), d.TrainBytes, d.ValBytes, d.VocabSize})
	return atomicfile.Write(path, func(w io.Writer) error {
		if err := writeHeader(w, dataMagic, js); err != nil {
			return err
		}
		if err := binary.Write(w, binary.LittleEndian, d.Train); err != nil {
			return err
		}
		return binary.Write(w, binary.LittleEndian, d.Val)
	})
}

// LoadData reads token streams written by Data.Save. A path that is not a
// regular file is refused before anything is read.
func LoadData(path string) (*Data, error) {
	f, size, err := regular.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := readData(bufio.NewReaderSize(f, 1<<20), size)
	if err != nil {
		return nil, fmt.Errorf("token cache %s: %w", path, err)
	}
	return d, nil
}

// readData reads a token cache of size bytes. The token counts in its
// header are checked against the size, and against the memory available,
// before the streams are allocated.
func readData(r io.Reader, size int64) (*Data, error) {
	js, err := readHeader(r, size, dataMagic, "a token cache")
	if err != nil {
		return nil, err
	}
	var h dataHeader
	if err := json.Unmarshal(js, &h); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	switch {
	case h.TrainTokens < 0 || h.ValTokens < 0 || h.TrainBytes < 0 || h.ValBytes < 0:
		return nil, fmt.Errorf("header: %d and %d tokens, %d and %d bytes: none may be negative", h.TrainTokens, h.ValTokens, h.TrainBytes, h.ValBytes)
	case h.VocabSize < 1 || h.VocabSize > maxVocabSize:
		return nil, fmt.Errorf("header: vocabulary of %d tokens is outside 1..%d", h.VocabSize, maxVocabSize)
	}
	tokens := int64(h.TrainTokens) + int64(h.ValTokens)
	if want := int64(len(dataMagic)) + 4 + int64(len(js)) + 2*tokens; size != want {
		return nil, fmt.Errorf("file is %d bytes but its header (%d training and %d validation tokens of 2 bytes) needs exactly %d: truncated or damaged", size, h.TrainTokens, h.ValTokens, want)
	}
	if err := memory.Check(fmt.Sprintf("%d tokens", tokens), 2*tokens); err != nil {
		return nil, err
	}
	d := &Data{Train: make([]uint16, h.TrainTokens), Val: make([]uint16, h.ValTokens),
		TrainBytes: h.TrainBytes, ValBytes: h.ValBytes, VocabSize: h.VocabSize}
	if err := binary.Read(r, binary.LittleEndian, d.Train); err != nil {
		return nil, err
	}
	if err := binary.Read(r, binary.LittleEndian, d.Val); err != nil {
		return nil, err
	}
	for _, s := range [][]uint16{d.Train, d.Val} {
		for i, t := range s {
			if int(t) >= h.VocabSize {
				return nil, fmt.Errorf("token %d at index %d is outside the vocabulary of %d", t, i, h.VocabSize)
			}
		}
	}
	return d, nil
}
