package train

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/atomicfile"
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
	train, err := enc.EncodeDocuments(docs(c.Train))
	if err != nil {
		return nil, fmt.Errorf("encoding training text: %w", err)
	}
	val, err := enc.EncodeDocuments(docs(c.Val))
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

// LoadData reads token streams written by Data.Save.
func LoadData(path string) (*Data, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	magic := make([]byte, len(dataMagic))
	var n uint32
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != dataMagic {
		return nil, fmt.Errorf("token cache %s: bad magic", path)
	}
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil || n > 1<<20 {
		return nil, fmt.Errorf("token cache %s: bad header", path)
	}
	js := make([]byte, n)
	var h dataHeader
	if _, err := io.ReadFull(r, js); err != nil {
		return nil, fmt.Errorf("token cache %s: %w", path, err)
	}
	if err := json.Unmarshal(js, &h); err != nil {
		return nil, fmt.Errorf("token cache %s: %w", path, err)
	}
	if h.TrainTokens < 0 || h.ValTokens < 0 || h.TrainTokens > 1<<31 || h.ValTokens > 1<<31 {
		return nil, errors.New("token cache: bad sizes")
	}
	d := &Data{Train: make([]uint16, h.TrainTokens), Val: make([]uint16, h.ValTokens),
		TrainBytes: h.TrainBytes, ValBytes: h.ValBytes, VocabSize: h.VocabSize}
	if err := binary.Read(r, binary.LittleEndian, d.Train); err != nil {
		return nil, fmt.Errorf("token cache %s: %w", path, err)
	}
	if err := binary.Read(r, binary.LittleEndian, d.Val); err != nil {
		return nil, fmt.Errorf("token cache %s: %w", path, err)
	}
	return d, nil
}
