package engine

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

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
// its file describes.
type Tokenizer struct {
	pieces   []string
	scores   []float32
	ids      map[string]int
	byteIDs  [256]int // id of "<0xHH>" for each byte, or -1
	maxLen   int
	bos, eos int

	gguf *bpe.Tokenizer // a GGUF model's tokenizer, or nil
	chat chatTemplate   // and its chat template
}

// chatTemplate is a GGUF model's chat template, with the text of its BOS
// and EOS tokens, which templates may write.
type chatTemplate struct {
	tmpl     *chat.Template
	bos, eos string
	err      error // why the model has no usable template
}

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
// the longest piece in bytes (0 computes it).
func NewTokenizer(pieces []string, scores []float32, maxLen int) (*Tokenizer, error) {
	if len(pieces) != len(scores) {
		return nil, fmt.Errorf("%d pieces but %d scores", len(pieces), len(scores))
	}
	if len(pieces) == 0 {
		return nil, errors.New("empty vocabulary")
	}
	t := &Tokenizer{pieces: pieces, scores: scores, ids: make(map[string]int, len(pieces)), maxLen: maxLen, bos: -1, eos: -1}
	for i := range t.byteIDs {
		t.byteIDs[i] = -1
	}
	for id, p := range pieces {
		if _, dup := t.ids[p]; !dup {
			t.ids[p] = id
		}
		if b, ok := byteToken(p); ok && t.byteIDs[b] < 0 {
			t.byteIDs[b] = id
		}
		t.maxLen = max(t.maxLen, len(p))
	}
	// llama2.c vocabularies put <unk>, <s> (BOS) and </s> (EOS) at ids 0, 1, 2.
	t.bos, t.eos = 1, 2
	if id, ok := t.ids["<s>"]; ok {
		t.bos = id
	}
	if id, ok := t.ids["</s>"]; ok {
		t.eos = id
	}
	if t.bos >= len(pieces) || t.eos >= len(pieces) {
		return nil, fmt.Errorf("vocabulary of %d tokens has no room for BOS/EOS ids %d/%d", len(pieces), t.bos, t.eos)
	}
	return t, nil
}

// byteToken parses a byte-fallback piece "<0xHH>".
func byteToken(p string) (byte, bool) {
	if len(p) != 6 || p[:3] != "<0x" || p[5] != '>' {
		return 0, false
	}
	v, err := strconv.ParseUint(p[3:5], 16, 8)
	if err != nil {
		return 0, false
	}
	return byte(v), true
}

// VocabSize is the number of tokens.
func (t *Tokenizer) VocabSize() int { return len(t.pieces) }

// BOS is the id of the beginning-of-sequence token.
func (t *Tokenizer) BOS() int { return t.bos }

// EOS is the id of the end-of-sequence token.
func (t *Tokenizer) EOS() int { return t.eos }

// Piece returns the raw vocabulary entry of a token, as stored in the file
// (for a byte-level BPE vocabulary, its spelling: "Ġworld" for " world").
func (t *Tokenizer) Piece(id int) string {
	if id < 0 || id >= len(t.pieces) {
		return ""
	}
	return t.pieces[id]
}

// Score returns a token's merge score.
func (t *Tokenizer) Score(id int) float32 { return t.scores[id] }

// Lookup returns the id of a piece, if the vocabulary has it.
func (t *Tokenizer) Lookup(piece string) (int, bool) {
	id, ok := t.ids[piece]
	return id, ok
}

// SameVocabulary reports whether two tokenizers have the same pieces with
// the same scores, and if not, the first token id where they differ.
func (t *Tokenizer) SameVocabulary(o *Tokenizer) (id int, same bool) {
	n := min(len(t.pieces), len(o.pieces))
	for i := range n {
		if t.pieces[i] != o.pieces[i] || t.scores[i] != o.scores[i] {
			return i, false
		}
	}
	if len(t.pieces) != len(o.pieces) {
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
	if t == nil {
		return nil, errors.New("no tokenizer (nil *Tokenizer)")
	}
	what := fmt.Sprintf("tokenizing a text of %d bytes (up to %d bytes of working memory per byte)", len(text), encodeBytesPerByte)
	if err := checkMemory(what, encodeBytesPerByte*int64(len(text))); err != nil {
		return nil, err
	}
	if t.gguf != nil {
		return t.encodeGGUF(text, bos, eos, true), nil
	}
	var tokens []int
	if bos {
		tokens = append(tokens, t.bos)
	}
	chars, err := t.split(text)
	if err != nil {
		return nil, err
	}
	tokens = append(tokens, t.merge(chars)...)
	if eos {
		tokens = append(tokens, t.eos)
	}
	return tokens, nil
}

// encodeGGUF is Encode for a GGUF model's tokenizer; parseSpecial says
// whether control tokens written in the text are those tokens.
func (t *Tokenizer) encodeGGUF(text string, bos, eos, parseSpecial bool) []int {
	return t.gguf.Encode(text, bos || eos, parseSpecial)
}

// encodeBytesPerByte bounds Encode's working memory per byte of text: a
// token id (8 bytes) and its two neighbour links and flag (17) per
// character before merging, and up to three candidate merges (40 bytes
// each) waiting in the heap.
const encodeBytesPerByte = 8 + 17 + 3*40

// split is the first half of Encode: the dummy-prefix space, then one token
// per UTF-8 character, or one byte-fallback token per byte of a character
// the vocabulary lacks.
func (t *Tokenizer) split(text string) ([]int, error) {
	if text == "" {
		return nil, nil
	}
	text = " " + text
	tokens := make([]int, 0, len(text))
	for i := 0; i < len(text); {
		// One UTF-8 character: a lead byte and its continuation bytes. A
		// stray continuation byte (invalid UTF-8) stands alone.
		j := i + 1
		if text[i] >= 0xC0 {
			for j < len(text) && text[j]&0xC0 == 0x80 && j-i < 4 {
				j++
			}
		}
		if id, ok := t.ids[text[i:j]]; ok {
			tokens = append(tokens, id)
		} else {
			for k := i; k < j; k++ {
				id := t.byteIDs[text[k]]
				if id < 0 {
					return nil, fmt.Errorf("byte 0x%02X at offset %d has no token and the vocabulary has no byte-fallback token for it", text[k], max(k-1, 0))
				}
				tokens = append(tokens, id)
			}
		}
		i = j
	}
	return tokens, nil
}

// merge applies BPE merges to tokens in place: again and again, the pair of
// neighbours whose merged piece has the highest score is merged, the
// leftmost one among equal scores, until no pair merges.
//
// Rescanning every pair after each merge costs O(n²) for n tokens. Instead
// the tokens form a linked list and every mergeable pair waits in a heap
// ordered by (score, position); a popped pair whose tokens have changed
// since it was pushed is skipped. That gives the same merges in O(n log n).
func (t *Tokenizer) merge(tokens []int) []int {
	n := len(tokens)
	if n < 2 {
		return tokens
	}
	prev, next := make([]int, n), make([]int, n)
	for i := range n {
		prev[i], next[i] = i-1, i+1
	}
	next[n-1] = -1
	var h pairHeap
	var buf []byte
	push := func(left int) {
		right := next[left]
		if left < 0 || right < 0 {
			return
		}
		buf = append(append(buf[:0], t.pieces[tokens[left]]...), t.pieces[tokens[right]]...)
		if id, ok := t.ids[string(buf)]; ok && !math.IsInf(float64(t.scores[id]), -1) {
			h.push(pair{score: t.scores[id], left: left, leftID: tokens[left], rightID: tokens[right], id: id})
		}
	}
	for i := range n - 1 {
		push(i)
	}
	alive := make([]bool, n)
	for i := range alive {
		alive[i] = true
	}
	for len(h) > 0 {
		p := h.pop()
		right := next[p.left]
		// Skip pairs made stale by an earlier merge of either token.
		if !alive[p.left] || right < 0 || tokens[p.left] != p.leftID || tokens[right] != p.rightID {
			continue
		}
		tokens[p.left] = p.id
		alive[right] = false
		next[p.left] = next[right]
		if next[right] >= 0 {
			prev[next[right]] = p.left
		}
		if prev[p.left] >= 0 {
			push(prev[p.left])
		}
		push(p.left)
	}
	out := tokens[:0]
	for i := 0; i >= 0; i = next[i] {
		out = append(out, tokens[i])
	}
	return out
}

// pair is a candidate merge of the token at index left with its right
// neighbour, as they were when it was pushed.
type pair struct {
	score           float32
	left            int
	leftID, rightID int
	id              int // the merged token
}

// pairHeap is a binary heap of candidate merges: highest score first, then
// leftmost.
type pairHeap []pair

func (h pairHeap) before(a, b int) bool {
	if h[a].score != h[b].score {
		return h[a].score > h[b].score
	}
	return h[a].left < h[b].left
}

func (h *pairHeap) push(p pair) {
	*h = append(*h, p)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if !s.before(i, parent) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

func (h *pairHeap) pop() pair {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, r, best := 2*i+1, 2*i+2, i
		if l < len(s) && s.before(l, best) {
			best = l
		}
		if r < len(s) && s.before(r, best) {
			best = r
		}
		if best == i {
			break
		}
		s[i], s[best] = s[best], s[i]
		i = best
	}
	*h = s
	return top
}

// Decode returns the bytes that token id stands for when it follows token
// prev. Byte-fallback tokens become their single byte (possibly part of a
// multi-byte UTF-8 character), and a piece right after BOS loses its leading
// space (the dummy prefix that Encode added).
func (t *Tokenizer) Decode(prev, id int) string {
	if t.gguf != nil {
		if id < 0 || id >= len(t.pieces) {
			return ""
		}
		return string(t.gguf.Piece(id))
	}
	p := t.Piece(id)
	if b, ok := byteToken(p); ok {
		p = string([]byte{b})
	}
	if prev == t.bos && len(p) > 0 && p[0] == ' ' {
		p = p[1:]
	}
	return p
}

// DecodeAll decodes a token sequence. Special tokens (BOS, EOS, and a GGUF
// model's other end-of-generation tokens) produce no text.
func (t *Tokenizer) DecodeAll(ids []int) string {
	var sb []byte
	prev := -1
	for _, id := range ids {
		if id != t.bos && id != t.eos && !t.IsEnd(id) {
			sb = append(sb, t.Decode(prev, id)...)
		}
		prev = id
	}
	return string(sb)
}

// WriteTo writes the tokenizer in llama2.c's tokenizer.bin layout. A GGUF
// model's tokenizer has no such layout, and is refused.
func (t *Tokenizer) WriteTo(w io.Writer) (int64, error) {
	if t.gguf != nil {
		return 0, errors.New("a GGUF model's tokenizer cannot be written as a llama2.c tokenizer.bin")
	}
	bw := bufio.NewWriter(w)
	n := int64(4)
	if err := binary.Write(bw, binary.LittleEndian, int32(t.maxLen)); err != nil {
		return 0, err
	}
	for i, p := range t.pieces {
		if err := binary.Write(bw, binary.LittleEndian, struct {
			Score float32
			Len   int32
		}{t.scores[i], int32(len(p))}); err != nil {
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
	if t.gguf != nil {
		return t.gguf.IsEndOfGeneration(id) || id == t.eos
	}
	return id == t.bos || id == t.eos
}
