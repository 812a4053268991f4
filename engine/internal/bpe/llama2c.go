package bpe

import (
	"errors"
	"fmt"
)

// llama2.c's tokenizer.bin holds a SentencePiece vocabulary too: each
// token's text (with spaces as spaces, not "▁") and score, and byte tokens
// <0x00>..<0xFF>. Its run.c encodes with the same merge by score (see
// sentencepiece.go) but differs from llama.cpp in details, which a
// Tokenizer built by FromLlama2c keeps, so that it gives run.c's ids:
//
//   - a space goes in front of any non-empty text, and nothing else is
//     special: "<s>" written in a text is the characters "<s>";
//   - a character is a lead byte and the continuation bytes after it (at
//     most four bytes), or a byte on its own; one the vocabulary lacks
//     becomes byte tokens before merging, and those merge by their
//     spelling ("<0xC3>"); a byte without a byte token is an error;
//   - a token scored -Inf is never made by merging;
//   - BOS and EOS are asked for separately, and a generated BOS ends a
//     text as EOS does;
//   - a token's leading space is dropped right after BOS, where Encode
//     put it.
//
// Unlike a GGUF file, a tokenizer.bin may list a text twice (the first
// listing is the one found by Lookup) and has no token types: "<0xNN>"
// tokens are bytes, "<unk>" stands for no text, the rest is text.

// FromLlama2c builds the Tokenizer of a llama2.c vocabulary: its tokens'
// texts and merge scores, by id. BOS and EOS are the tokens "<s>" and
// "</s>", or ids 1 and 2 where the vocabulary has no such text. The
// Tokenizer keeps both slices: the caller must not change them.
func FromLlama2c(tokens []string, scores []float32) (*Tokenizer, error) {
	if len(tokens) != len(scores) {
		return nil, fmt.Errorf("%d pieces but %d scores", len(tokens), len(scores))
	}
	if len(tokens) == 0 {
		return nil, errors.New("empty vocabulary")
	}
	if len(tokens) > 1<<31-1 {
		return nil, fmt.Errorf("the vocabulary has %d tokens, more than ids can number", len(tokens))
	}
	n := len(tokens)
	t := &Tokenizer{
		spm: true, llama2c: true, spacePrefix: true, addBOS: true, addEOS: true,
		tokens: tokens, scores: scores,
		types: make([]TokenType, n), pieces: make([][]byte, n), ids: make(map[string]int32, n),
		unk: None, pad: None, eot: None, eom: None,
	}
	for b := range t.byteToken {
		t.byteToken[b] = None
	}
	for id, text := range tokens {
		if _, dup := t.ids[text]; !dup {
			t.ids[text] = int32(id)
		}
		t.types[id], t.pieces[id] = Normal, []byte(text)
		if b, ok := parseByteToken(text); ok {
			t.types[id], t.pieces[id] = Byte, []byte{b}
			if t.byteToken[b] == None {
				t.byteToken[b] = int32(id)
			}
		} else if text == "<unk>" {
			t.types[id] = Unknown
		}
	}
	// llama2.c vocabularies put <unk>, <s> (BOS) and </s> (EOS) at ids 0,
	// 1, 2.
	t.bos, t.eos = 1, 2
	if id, ok := t.ids["<s>"]; ok {
		t.bos = int(id)
	}
	if id, ok := t.ids["</s>"]; ok {
		t.eos = int(id)
	}
	if t.bos >= n || t.eos >= n {
		return nil, fmt.Errorf("vocabulary of %d tokens has no room for BOS/EOS ids %d/%d", n, t.bos, t.eos)
	}
	t.eog = map[int]bool{t.bos: true, t.eos: true}
	return t, nil
}

// splitLlama2c cuts text into pieces as run.c does, and returns them with
// the text they spell: the text itself, but for a character the
// vocabulary lacks, which is spelled by its bytes' tokens.
func (t *Tokenizer) splitLlama2c(text string) (string, []piece, error) {
	pieces := make([]piece, 0, len(text))
	var spelled []byte // nil while it is still text itself
	for i := 0; i < len(text); {
		j := i + 1
		if text[i] >= 0xC0 {
			for j < len(text) && text[j]&0xC0 == 0x80 && j-i < 4 {
				j++
			}
		}
		if id, ok := t.ids[text[i:j]]; ok {
			at := i
			if spelled != nil {
				at = len(spelled)
				spelled = append(spelled, text[i:j]...)
			}
			pieces = append(pieces, piece{start: int32(at), n: int32(j - i), id: id})
			i = j
			continue
		}
		if spelled == nil {
			spelled = append(make([]byte, 0, len(text)+16), text[:i]...)
		}
		for k := i; k < j; k++ {
			id := t.byteToken[text[k]]
			if id == None {
				// The offset is in the caller's text, before the space
				// prefix.
				return "", nil, fmt.Errorf("byte 0x%02X at offset %d has no token and the vocabulary has no byte-fallback token for it", text[k], max(k-1, 0))
			}
			pieces = append(pieces, piece{start: int32(len(spelled)), n: int32(len(t.tokens[id])), id: id})
			spelled = append(spelled, t.tokens[id]...)
		}
		i = j
	}
	link(pieces)
	if spelled == nil {
		return text, pieces, nil
	}
	return string(spelled), pieces, nil
}

// askFor returns whether Encode adds BOS and EOS, asked for bos and eos.
// llama.cpp's tokenizer has one request for both (add_special), answered
// as the GGUF file says (AddBOS, AddEOS); run.c takes them separately.
func (t *Tokenizer) askFor(bos, eos bool) (addBOS, addEOS bool) {
	if !t.llama2c {
		bos, eos = bos || eos, bos || eos
	}
	return bos && t.addBOS, eos && t.addEOS
}

// PieceAfter returns the bytes token id adds to a text right after token
// prev: its Piece, except that a llama2.c token loses its leading space
// right after BOS, as run.c prints it (the space Encode put in front).
// Ids out of range give nothing. The slice must not be modified.
func (t *Tokenizer) PieceAfter(prev, id int) []byte {
	p := t.Piece(id)
	if t.ChangesAfter(prev) && len(p) > 0 && p[0] == ' ' {
		p = p[1:]
	}
	return p
}

// ChangesAfter reports whether a token's bytes right after token prev may
// differ from its Piece (see PieceAfter): after BOS, in a llama2.c
// vocabulary.
func (t *Tokenizer) ChangesAfter(prev int) bool {
	return t.llama2c && prev == t.bos
}

// EndName returns how the vocabulary writes end token id, to say which end
// a text reached: a GGUF vocabulary names each of its ends (<|im_end|>,
// <|endoftext|>); a llama2.c vocabulary's ends, BOS and EOS, are simply
// the end of the text, and get "".
func (t *Tokenizer) EndName(id int) string {
	if t.llama2c {
		return ""
	}
	return t.Token(id)
}
