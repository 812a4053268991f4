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
// in the list. A priority queue of the adjacent pairs finds each next merge
// without rescanning the word.

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

// A symbol is one token of a word being merged, in a linked list.
type symbol struct {
	id         int32 // None if the byte has no token
	prev, next int   // neighbours' indices, -1 at the ends
	gone       bool  // merged into its left neighbour
}

// A candidate is an adjacent pair that the merge list names, waiting in
// the queue. Merging can make it stale: if either symbol has changed since
// it was queued, it is dropped when it comes out.
type candidate struct {
	merge
	left, right int  // symbol indices
	ids         pair // the symbols' tokens when queued
}

// before orders candidates by rank, then from left to right.
func before(a, b candidate) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.left < b.left
}

// merger holds the buffers of one Encode call, reused from word to word.
type merger struct {
	syms  []symbol
	queue []candidate
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
	syms := m.syms[:0]
	for i, b := range word {
		syms = append(syms, symbol{id: t.byteToken[b], prev: i - 1, next: i + 1})
	}
	syms[len(syms)-1].next = -1
	m.syms = syms

	q := m.queue[:0]
	consider := func(left, right int) {
		if left < 0 || right < 0 {
			return
		}
		p := pair{syms[left].id, syms[right].id}
		if mg, ok := t.merges[p]; ok {
			q = heapPush(q, candidate{merge: mg, left: left, right: right, ids: p}, before)
		}
	}
	for i := 1; i < len(syms); i++ {
		consider(i-1, i)
	}
	for len(q) > 0 {
		var c candidate
		c, q = heapPop(q, before)
		l, r := &syms[c.left], &syms[c.right]
		if l.gone || r.gone || l.id != c.ids.left || r.id != c.ids.right {
			continue
		}
		l.id = c.id
		r.gone = true
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = c.left
		}
		consider(l.prev, c.left)
		consider(c.left, l.next)
	}
	m.queue = q

	for i := 0; i >= 0; i = syms[i].next {
		if id := syms[i].id; id != None {
			out = append(out, int(id))
			continue
		}
		// A byte whose character is not in the vocabulary (SmolLM2's lacks
		// a few control characters, and bytes that UTF-8 never uses):
		// llama.cpp then looks up each byte of the character's UTF-8 as a
		// token of its own, and drops those that are not, so the byte is
		// lost.
		for _, b := range []byte(string(byteChar[word[i]])) {
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
