package notebook

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tokenbytoken/course/engine"
)

// TokenText returns a function that gives the text a token of tok stands
// for, ready to be labelled with TokenLabel or shown with ShowTokens.
//
// Vocabularies store their pieces in their own spellings: a byte-level BPE
// vocabulary (SmolLM2's) writes a space as "Ġ" and a line break as "Ċ", and
// a SentencePiece-style one (the course's model) writes a lone byte as
// "<0x0A>". The text returned is what the token decodes to, so that the
// labels show spaces, line breaks and tabs the same way for every model. A
// special token (a chat marker such as "<|im_start|>") is its own name. A
// byte that is not valid UTF-8 on its own (part of a character split across
// tokens) is written "<0xHH>", so that a label never hides which token it
// is.
func TokenText(tok *engine.Tokenizer) func(id int) string {
	return func(id int) string {
		if id < 0 || id >= tok.VocabSize() {
			return fmt.Sprintf("<bad id %d>", id)
		}
		if tok.IsControl(id) {
			return tok.Piece(id)
		}
		return validBytes(tok.Decode(-1, id))
	}
}

// validBytes returns s with every byte that is not part of a valid UTF-8
// character written as "<0xHH>".
func validBytes(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && size <= 1 {
			fmt.Fprintf(&b, "<0x%02X>", s[0])
			s = s[1:]
			continue
		}
		b.WriteString(s[:size])
		s = s[size:]
	}
	return b.String()
}

// TokenTexts returns the text of every token of ids (see TokenText): the
// pieces ShowTokens draws.
func TokenTexts(tok *engine.Tokenizer, ids []int) []string {
	text := TokenText(tok)
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = text(id)
	}
	return out
}
