package engine

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/tokenbytoken/course/engine/internal/atomicfile"
	"github.com/tokenbytoken/course/engine/internal/bpe"
	"github.com/tokenbytoken/course/engine/internal/chat"
	"github.com/tokenbytoken/course/engine/internal/regular"
)

// Tokenizer turns text into token ids and back, using the byte-pair
// encoding (BPE) vocabulary of a llama2.c tokenizer.bin file.
//
// The file layout is an int32 max_token_length followed, for every token, by
// a float32 merge score, an int32 byte length and the token's bytes. Higher
// scores are merged first. Pieces of the form "<0xHH>" are byte-fallback
// tokens: any byte that no other token covers is encoded as its byte token.
//
// A GGUF model's tokenizer (see TokenizerFromGGUF) is a Tokenizer too: the
// same methods, answered by the byte-level BPE or SentencePiece tokenizer
// its file describes. llama2.c's tokenizer is SentencePiece as well, so
// both are the same tokenizer underneath, each following the program it
// reproduces (run.c, llama.cpp) where the two differ.
type Tokenizer struct {
	bpe *bpe.Tokenizer
	// maxLen is the longest piece in bytes, as tokenizer.bin records it;
	// -1 for a GGUF model's tokenizer, which has no tokenizer.bin layout.
	maxLen int
	chat   chatTemplate // the model's chat template, or why there is none
}

// chatTemplate is a GGUF model's chat template, with the text of its BOS
// and EOS tokens, which templates may write.
type chatTemplate struct {
	tmpl     *chat.Template
	bos, eos string
	err      error // why the model has no usable template
}

// noChatTemplate is why a llama2.c model has no chat template.
var noChatTemplate = chatTemplate{err: errors.New("a llama2.c model has no chat template: chat needs an instruction-tuned model, such as SmolLM2")}

// Maximum max_token_length accepted in a tokenizer file.
const maxTokenBytes = 1 << 16

// LoadTokenizer reads a llama2.c tokenizer.bin file. vocabSize is the number
// of tokens the model expects; the file must hold exactly that many. Pass 0
// to read every token in the file.
//
// A path that is not a regular file (a named pipe, a device, a directory)
// is refused before anything is read.
func LoadTokenizer(path string, vocabSize int) (*Tokenizer, error) {
	f, size, err := regular.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open tokenizer: %w", err)
	}
	defer f.Close()
	// The pieces, their scores and the lookup table take about twice the
	// file's size.
	if err := checkMemory(fmt.Sprintf("the tokenizer %s of %d bytes", path, size), 2*size); err != nil {
		return nil, err
	}
	t, err := ReadTokenizer(bufio.NewReader(f), vocabSize)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	return t, nil
}

// ParseTokenizer reads a tokenizer.bin held in memory (see LoadTokenizer).
func ParseTokenizer(data []byte, vocabSize int) (*Tokenizer, error) {
	return ReadTokenizer(bytes.NewReader(data), vocabSize)
}

// ReadTokenizer reads a tokenizer.bin stream (see LoadTokenizer).
func ReadTokenizer(r io.Reader, vocabSize int) (*Tokenizer, error) {
	if vocabSize < 0 || vocabSize > maxVocab {
		return nil, fmt.Errorf("vocabulary size %d is out of range (0..%d)", vocabSize, maxVocab)
	}
	var maxLen int32
	if err := binary.Read(r, binary.LittleEndian, &maxLen); err != nil {
		return nil, fmt.Errorf("reading max_token_length: %w", noEOF(err))
	}
	if maxLen <= 0 || maxLen > maxTokenBytes {
		return nil, fmt.Errorf("max_token_length = %d is out of range (1..%d)", maxLen, maxTokenBytes)
	}
	var pieces []string
	var scores []float32
	for i := 0; vocabSize == 0 || i < vocabSize; i++ {
		var rec struct {
			Score float32
			Len   int32
		}
		err := binary.Read(r, binary.LittleEndian, &rec)
		if err == io.EOF && vocabSize == 0 && i > 0 {
			break
		}
		if err != nil {
			if err == io.EOF && vocabSize == 0 {
				return nil, errors.New("file holds no tokens")
			}
			if err == io.EOF {
				return nil, fmt.Errorf("file holds %d tokens but the model's vocabulary has %d", i, vocabSize)
			}
			return nil, fmt.Errorf("reading token %d: %w", i, noEOF(err))
		}
		if rec.Len < 0 || rec.Len > maxLen {
			return nil, fmt.Errorf("token %d has length %d, outside 0..max_token_length=%d", i, rec.Len, maxLen)
		}
		if math.IsNaN(float64(rec.Score)) || math.IsInf(float64(rec.Score), 0) {
			return nil, fmt.Errorf("token %d has score %v; scores must be finite", i, rec.Score)
		}
		b := make([]byte, rec.Len)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, fmt.Errorf("reading token %d: %w", i, noEOF(err))
		}
		pieces = append(pieces, string(b))
		scores = append(scores, rec.Score)
		if i+1 > maxVocab {
			return nil, fmt.Errorf("more than %d tokens", maxVocab)
		}
	}
	if vocabSize > 0 {
		// Anything left over means the tokenizer has more tokens than the
		// model: they do not belong together.
		var one [1]byte
		if n, _ := r.Read(one[:]); n > 0 {
			return nil, fmt.Errorf("file holds more than the model's %d tokens: tokenizer and model do not match", vocabSize)
		}
	}
	return NewTokenizer(pieces, scores, int(maxLen))
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// NewTokenizer builds a tokenizer from its pieces and merge scores. maxLen is
// the longest piece in bytes (0 computes it). The tokenizer keeps both
// slices: the caller must not change them.
func NewTokenizer(pieces []string, scores []float32, maxLen int) (*Tokenizer, error) {
	b, err := bpe.FromLlama2c(pieces, scores)
	if err != nil {
		return nil, err
	}
	for _, p := range pieces {
		maxLen = max(maxLen, len(p))
	}
	return &Tokenizer{bpe: b, maxLen: maxLen, chat: noChatTemplate}, nil
}

// VocabSize is the number of tokens.
func (t *Tokenizer) VocabSize() int { return t.bpe.VocabSize() }

// BOS is the id of the beginning-of-sequence token.
func (t *Tokenizer) BOS() int { return t.bpe.BOS() }

// EOS is the id of the end-of-sequence token.
func (t *Tokenizer) EOS() int { return t.bpe.EOS() }

// Piece returns the raw vocabulary entry of a token, as stored in the file
// (for a byte-level BPE vocabulary, its spelling: "Ġworld" for " world").
func (t *Tokenizer) Piece(id int) string { return t.bpe.Token(id) }

// Score returns a token's merge score.
func (t *Tokenizer) Score(id int) float32 { return t.bpe.Score(id) }

// Lookup returns the id of a piece, if the vocabulary has it.
func (t *Tokenizer) Lookup(piece string) (int, bool) { return t.bpe.Lookup(piece) }

// SameVocabulary reports whether two tokenizers have the same pieces with
// the same scores, and if not, the first token id where they differ.
func (t *Tokenizer) SameVocabulary(o *Tokenizer) (id int, same bool) {
	n := min(t.VocabSize(), o.VocabSize())
	for i := range n {
		if t.Piece(i) != o.Piece(i) || t.Score(i) != o.Score(i) {
			return i, false
		}
	}
	if t.VocabSize() != o.VocabSize() {
		return n, false
	}
	return 0, true
}

// Encode turns text into token ids, the way llama2.c does: a leading space
// is added to non-empty text (the "dummy prefix" SentencePiece models
// expect), each UTF-8 character becomes its own token or, when the
// vocabulary lacks it, one byte-fallback token per byte, and then the pair
// of neighbouring tokens whose merge has the highest score is merged, again
// and again, until no pair merges. bos and eos add the special tokens.
//
// Tokenizing takes memory in proportion to the text (encodeBytesPerByte
// bytes per byte at most); a text too long for the memory available is
// refused before any work.
//
// A GGUF model's tokenizer encodes as llama.cpp does for a prompt: control
// tokens written in the text ("<|im_start|>") are those tokens, and bos and
// eos add BOS and EOS only where the file asks for them.
func (t *Tokenizer) Encode(text string, bos, eos bool) ([]int, error) {
	return t.encode(text, bos, eos, true)
}

// encode is Encode; parseSpecial says whether control tokens written in
// the text are those tokens.
func (t *Tokenizer) encode(text string, bos, eos, parseSpecial bool) ([]int, error) {
	if t == nil {
		return nil, errors.New("no tokenizer (nil *Tokenizer)")
	}
	what := fmt.Sprintf("tokenizing a text of %d bytes (up to %d bytes of working memory per byte)", len(text), encodeBytesPerByte)
	if err := checkMemory(what, encodeBytesPerByte*int64(len(text))); err != nil {
		return nil, err
	}
	return t.bpe.Encode(text, bos, eos, parseSpecial)
}

// encodeBytesPerByte bounds Encode's working memory per byte of text, for
// SentencePiece, where each byte may become a piece of its own: the text as
// the vocabulary spells it (up to 6 bytes, "<0xE9>" for a byte the
// vocabulary lacks, built and then copied: 12), the text with its space
// prefix (1), the piece in a linked list (20), up to three merges waiting
// in the heap (16 bytes each) and its token id (8, and as much again while
// the slice of ids grows): 97, with room to spare.
const encodeBytesPerByte = 145

// Decode returns the bytes that token id stands for when it follows token
// prev. Byte-fallback tokens become their single byte (possibly part of a
// multi-byte UTF-8 character), and a llama2.c piece right after BOS loses
// its leading space (the dummy prefix that Encode added).
func (t *Tokenizer) Decode(prev, id int) string {
	return string(t.bpe.PieceAfter(prev, id))
}

// DecodeAll decodes a token sequence. Special tokens (BOS, EOS, and a GGUF
// model's other end-of-generation tokens) produce no text.
func (t *Tokenizer) DecodeAll(ids []int) string {
	var sb []byte
	prev := -1
	for _, id := range ids {
		if id != t.BOS() && id != t.EOS() && !t.IsEnd(id) {
			sb = append(sb, t.Decode(prev, id)...)
		}
		prev = id
	}
	return string(sb)
}

// WriteTo writes the tokenizer in llama2.c's tokenizer.bin layout. A GGUF
// model's tokenizer has no such layout, and is refused.
func (t *Tokenizer) WriteTo(w io.Writer) (int64, error) {
	if t.maxLen < 0 {
		return 0, errors.New("a GGUF model's tokenizer cannot be written as a llama2.c tokenizer.bin")
	}
	bw := bufio.NewWriter(w)
	n := int64(4)
	if err := binary.Write(bw, binary.LittleEndian, int32(t.maxLen)); err != nil {
		return 0, err
	}
	for i := range t.VocabSize() {
		p := t.Piece(i)
		if err := binary.Write(bw, binary.LittleEndian, struct {
			Score float32
			Len   int32
		}{t.Score(i), int32(len(p))}); err != nil {
			return n, err
		}
		if _, err := bw.WriteString(p); err != nil {
			return n, err
		}
		n += 8 + int64(len(p))
	}
	return n, bw.Flush()
}

// Save writes the tokenizer to path atomically (see Model.Save).
func (t *Tokenizer) Save(path string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := t.WriteTo(w)
		return err
	})
}

// IsEnd reports whether a generated token ends the text. In llama2.c
// checkpoints a generated BOS ends the sample; EOS does as well. A GGUF
// model's file names its end-of-generation tokens: an instruction-tuned
// model's end of turn (<|im_end|>, <|eot_id|>) among them.
func (t *Tokenizer) IsEnd(id int) bool {
	return t.bpe.IsEndOfGeneration(id) || id == t.EOS()
}
