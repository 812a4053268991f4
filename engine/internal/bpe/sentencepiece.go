package bpe

import (
	"fmt"
	"math"
	"strings"
)

// SentencePiece (the "llama" model, and llama2.c's tokenizer.bin) has no
// pre-tokenizer and no merge list. The text, with a space put in front
// (AddSpacePrefix) and, in a GGUF vocabulary, every space written "▁", is
// cut into characters, and adjacent pieces are merged whenever their
// concatenation is a token: the merge giving the token with the highest
// score first, the leftmost on ties. A piece that is still not a token at
// the end (a character the vocabulary lacks) is written as its bytes, with
// the byte tokens <0x00>..<0xFF> ("byte fallback"). llama2.c falls back to
// byte tokens before merging instead (see llama2c.go).

// buildByteTokensSPM finds the token of each byte: <0xNN>, or else the
// byte as a one-character token.
func (t *Tokenizer) buildByteTokensSPM() {
	for b := range t.byteToken {
		t.byteToken[b] = None
		if id, ok := t.ids[fmt.Sprintf("<0x%02X>", b)]; ok {
			t.byteToken[b] = id
		} else if id, ok := t.ids[string([]byte{byte(b)})]; ok {
			t.byteToken[b] = id
		}
	}
}

// encodeSPM appends the SentencePiece tokens of text, a fragment with no
// special tokens in it; afterSpecial says whether it starts the text or
// follows a special token, where the space prefix goes.
func (t *Tokenizer) encodeSPM(text string, afterSpecial bool, out []int) ([]int, error) {
	var spelled string
	var pieces []piece
	if t.llama2c {
		var err error
		if spelled, pieces, err = t.splitLlama2c(t.spmText(text, afterSpecial)); err != nil {
			return out, err
		}
	} else {
		spelled = t.spmText(text, afterSpecial)
		pieces = t.splitSPM(spelled)
	}
	if len(pieces) == 0 {
		return out, nil
	}
	t.mergeByScore(spelled, pieces)
	for i := int32(0); i >= 0; i = pieces[i].next {
		s := pieces[i]
		if s.id != None {
			out = append(out, int(s.id))
			continue
		}
		out = t.byteFallback(spelled[s.start:s.start+s.n], out)
	}
	return out, nil
}

// splitSPM cuts text into one piece per UTF-8 character, its length read
// from its first byte alone (invalid UTF-8 is not checked: its bytes end
// up as byte tokens).
func (t *Tokenizer) splitSPM(text string) []piece {
	pieces := make([]piece, 0, len(text))
	for i := 0; i < len(text); {
		n := min(utf8Len(text[i]), len(text)-i)
		id, ok := t.ids[text[i:i+n]]
		if !ok {
			id = None
		}
		pieces = append(pieces, piece{start: int32(i), n: int32(n), id: id})
		i += n
	}
	link(pieces)
	return pieces
}

// mergeByScore joins adjacent pieces of spelled, the text as the
// vocabulary spells it, until no two left join: two pieces join if their
// spelling together is a token, the token of highest score first, the
// leftmost on ties. A piece's spelling is a slice of spelled, and so is
// that of two neighbours together. The pieces stay a linked list from
// pieces[0].
func (t *Tokenizer) mergeByScore(spelled string, pieces []piece) {
	var h joins
	consider := func(left, right int32) {
		if left < 0 || right < 0 {
			return
		}
		l, r := &pieces[left], &pieces[right]
		id, ok := t.ids[spelled[l.start:l.start+l.n+r.n]]
		// run.c never joins into a token scored -Inf: its best score
		// starts below every finite one.
		if !ok || t.llama2c && math.IsInf(float64(t.scores[id]), -1) {
			return
		}
		h = h.push(join{score: t.scores[id], left: left, n: l.n + r.n, id: id})
	}
	for i := 1; i < len(pieces); i++ {
		consider(int32(i-1), int32(i))
	}
	for len(h) > 0 {
		var j join
		j, h = h.pop()
		l := &pieces[j.left]
		if l.n == 0 || l.next < 0 {
			continue
		}
		r := &pieces[l.next]
		if l.n+r.n != j.n {
			continue
		}
		l.n += r.n
		l.id = j.id
		r.n = 0
		l.next = r.next
		if r.next >= 0 {
			pieces[r.next].prev = j.left
		}
		consider(l.prev, j.left)
		consider(j.left, l.next)
	}
}

// byteFallback appends the tokens of a character that is not in the
// vocabulary: its bytes' tokens or, if some byte has none, the unknown
// token (if there is one) for the whole character, as SentencePiece does
// without byte fallback. (llama.cpp stops with an error there.)
func (t *Tokenizer) byteFallback(s string, out []int) []int {
	for i := 0; i < len(s); i++ {
		if t.byteToken[s[i]] == None {
			if t.unk != None {
				out = append(out, t.unk)
			}
			return out
		}
	}
	for i := 0; i < len(s); i++ {
		out = append(out, int(t.byteToken[s[i]]))
	}
	return out
}

// utf8Len returns the length of the UTF-8 sequence that b starts, judging
// by its high bits alone (a stray continuation byte counts as 1).
func utf8Len(b byte) int {
	switch {
	case b < 0xC0:
		return 1
	case b < 0xE0:
		return 2
	case b < 0xF0:
		return 3
	}
	return 4
}

// spmText prepares a fragment of text for encodeSPM: the space prefix, and
// spaces written "▁" as GGUF vocabularies spell them (llama2.c's spell a
// space as a space).
func (t *Tokenizer) spmText(text string, afterSpecial bool) string {
	if t.spacePrefix && afterSpecial {
		text = " " + text
	}
	if t.llama2c {
		return text
	}
	return strings.ReplaceAll(text, " ", "▁")
}
