package bpe

import (
	"fmt"
	"strings"
)

// SentencePiece (the "llama" model) has no pre-tokenizer and no merge
// list. The text, with a space put in front (AddSpacePrefix) and every
// space written "▁", is cut into characters, and adjacent pieces are merged
// whenever their concatenation is a token: the merge giving the token with
// the highest score first, the leftmost on ties. A piece that is still not
// a token at the end (a character the vocabulary lacks) is written as its
// bytes, with the byte tokens <0x00>..<0xFF> ("byte fallback").

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

// A piece is a run of the text, in a linked list.
type piece struct {
	start, n   int // n is 0 once merged into the left neighbour
	prev, next int
}

// A scored pair of adjacent pieces waiting to be merged. It is stale if
// either piece has changed length since it was queued.
type scoredPair struct {
	score       float32
	left, right int
	n           int // the merged length
}

// higher orders pairs by score, highest first, then from left to right.
func higher(a, b scoredPair) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.left < b.left
}

// encodeSPM appends the SentencePiece tokens of text (with no special
// tokens in it, its spaces already written "▁").
func (t *Tokenizer) encodeSPM(text string, out []int) []int {
	if text == "" {
		return out
	}
	// One piece per UTF-8 character, its length read from its first byte
	// alone (invalid UTF-8 is not checked: its bytes end up as byte tokens).
	var pieces []piece
	for i := 0; i < len(text); {
		n := min(utf8Len(text[i]), len(text)-i)
		pieces = append(pieces, piece{start: i, n: n, prev: len(pieces) - 1, next: len(pieces) + 1})
		i += n
	}
	pieces[len(pieces)-1].next = -1

	var q []scoredPair
	consider := func(left, right int) {
		if left < 0 || right < 0 {
			return
		}
		l, r := pieces[left], pieces[right]
		if id, ok := t.ids[text[l.start:l.start+l.n+r.n]]; ok {
			q = heapPush(q, scoredPair{score: t.scores[id], left: left, right: right, n: l.n + r.n}, higher)
		}
	}
	for i := 1; i < len(pieces); i++ {
		consider(i-1, i)
	}
	for len(q) > 0 {
		var p scoredPair
		p, q = heapPop(q, higher)
		l, r := &pieces[p.left], &pieces[p.right]
		if l.n == 0 || r.n == 0 || l.n+r.n != p.n {
			continue
		}
		l.n += r.n
		r.n = 0
		l.next = r.next
		if r.next >= 0 {
			pieces[r.next].prev = p.left
		}
		consider(l.prev, p.left)
		consider(p.left, l.next)
	}

	for i := 0; i >= 0; i = pieces[i].next {
		s := text[pieces[i].start : pieces[i].start+pieces[i].n]
		if id, ok := t.ids[s]; ok {
			out = append(out, int(id))
			continue
		}
		out = t.byteFallback(s, out)
	}
	return out
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

// spmText prepares a fragment of text for encodeSPM.
func (t *Tokenizer) spmText(text string, afterSpecial bool) string {
	if t.spacePrefix && afterSpecial {
		text = " " + text
	}
	return strings.ReplaceAll(text, " ", "▁")
}
