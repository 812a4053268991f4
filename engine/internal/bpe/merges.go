package bpe

import (
	"fmt"
	"strings"
)

// Byte-level BPE starts from a word's bytes, one token each (the token
// spelled with the byte's character, see bytemap.go), and merges adjacent
// pairs of tokens into one, following the merge list: of all adjacent
// pairs that the list names, the one listed first (its rank) is merged
// first, the leftmost if it occurs more than once, until no pair left is
// in the list. The pieces and the heap of waiting merges are
// SentencePiece's (merge.go), a merge scoring minus its rank, so that the
// earliest listed scores highest.

// A pair is two adjacent token ids.
type pair struct{ left, right int32 }

// A merge is what a pair becomes, and when.
type merge struct {
	rank int32 // position in the merge list: lower merges first
	id   int32 // the merged token
}

// buildMerges reads the merge list. Each entry is "left right", split at
// the first space after the first character (a token may start with a
// space, never contain one elsewhere), and left, right and their
// concatenation must all be tokens.
func (t *Tokenizer) buildMerges(list []string) error {
	if len(list) > maxRank {
		return fmt.Errorf("%d merges, more than the %d whose ranks a score can tell apart", len(list), maxRank)
	}
	t.merges = make(map[pair]merge, len(list))
	for rank, m := range list {
		i := strings.IndexByte(m[min(1, len(m)):], ' ') + 1
		if i <= 0 {
			return fmt.Errorf("merge %d %q is not two tokens separated by a space", rank, m)
		}
		left, right := m[:i], m[i+1:]
		var ids [3]int32
		for k, text := range []string{left, right, left + right} {
			id, ok := t.ids[text]
			if !ok || text == "" {
				return fmt.Errorf("merge %d %q: %q is not in the vocabulary", rank, m, text)
			}
			ids[k] = id
		}
		p := pair{ids[0], ids[1]}
		if _, dup := t.merges[p]; !dup { // the first listing counts
			t.merges[p] = merge{rank: int32(rank), id: ids[2]}
		}
	}
	return nil
}

// buildByteTokensBPE finds the token of each byte's character.
func (t *Tokenizer) buildByteTokensBPE() {
	for b := range t.byteToken {
		t.byteToken[b] = None
		if id, ok := t.ids[string(byteChar[b])]; ok {
			t.byteToken[b] = id
		}
	}
}

// maxRank is the longest merge list: a merge scores -rank, a float32,
// exact for integers up to 2²⁴.
const maxRank = 1 << 24

// merger holds the buffers of one Encode call, reused from word to word.
type merger struct {
	pieces []piece
	joins  joins
}

// mergeWord appends the tokens of one word, given as raw bytes.
func (t *Tokenizer) mergeWord(m *merger, word []byte, out []int) []int {
	if len(word) == 0 {
		return out
	}
	if t.pre.ignoreMerges {
		if id, ok := t.ids[byteLevel(word)]; ok {
			return append(out, int(id))
		}
	}
	pieces := m.pieces[:0]
	for i, b := range word {
		pieces = append(pieces, piece{start: int32(i), n: 1, id: t.byteToken[b]})
	}
	link(pieces)
	m.pieces = pieces

	h := m.joins[:0]
	consider := func(left, right int32) {
		if left < 0 || right < 0 {
			return
		}
		l, r := &pieces[left], &pieces[right]
		if mg, ok := t.merges[pair{l.id, r.id}]; ok {
			h = h.push(join{score: -float32(mg.rank), left: left, n: l.n + r.n, id: mg.id})
		}
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
	m.joins = h

	for i := int32(0); i >= 0; i = pieces[i].next {
		if id := pieces[i].id; id != None {
			out = append(out, int(id))
			continue
		}
		// A byte whose character is not in the vocabulary (SmolLM2's lacks
		// a few control characters, and bytes that UTF-8 never uses):
		// llama.cpp then looks up each byte of the character's UTF-8 as a
		// token of its own, and drops those that are not, so the byte is
		// lost. (Such a piece never merged: it is still one byte.)
		for _, b := range []byte(string(byteChar[word[pieces[i].start]])) {
			if id, ok := t.ids[string([]byte{b})]; ok {
				out = append(out, int(id))
			}
		}
	}
	return out
}

// encodeBPE appends the byte-level BPE tokens of text (with no special
// tokens in it).
func (t *Tokenizer) encodeBPE(text string, out []int) []int {
	cpts := decodeText(text, nil)
	var word []byte
	var m merger
	start := 0
	for _, n := range t.pre.split(cpts) {
		word = word[:0]
		for _, r := range cpts[start : start+n] {
			word = appendRune(word, r)
		}
		start += n
		out = t.mergeWord(&m, word, out)
	}
	return out
}
