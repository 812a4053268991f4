package train

import (
	"container/heap"
	"fmt"
	"runtime"
	"sync"

	"github.com/tokenbytoken/course/engine"
)

// Encoder turns text into exactly the token ids that the engine's
// Tokenizer.Encode produces, but in O(n log n) time instead of O(n²), so
// that a whole corpus can be encoded. Like Encode, it adds the leading
// space, starts from one token per UTF-8 character (or its byte tokens),
// and repeatedly merges the adjacent pair whose merged piece has the
// highest score, leftmost first among equal scores.
type Encoder struct {
	tok     *engine.Tokenizer
	byteIDs [256]int32
	// merges maps a pair of token ids to the id of the piece their two
	// pieces form, when that piece is in the vocabulary.
	merges map[uint64]int32
	scores []float32
}

// NewEncoder prepares the merge table of a tokenizer.
func NewEncoder(tok *engine.Tokenizer) *Encoder {
	e := &Encoder{tok: tok, merges: map[uint64]int32{}}
	n := tok.VocabSize()
	e.scores = make([]float32, n)
	byPiece := map[string][]int32{}
	for id := range n {
		p := tok.Piece(id)
		byPiece[p] = append(byPiece[p], int32(id))
		e.scores[id] = tok.Score(id)
	}
	for b := range 256 {
		e.byteIDs[b] = -1
		if id, ok := tok.Lookup(fmt.Sprintf("<0x%02X>", b)); ok {
			e.byteIDs[b] = int32(id)
		}
	}
	for id := range n {
		p := tok.Piece(id)
		merged, _ := tok.Lookup(p) // the engine looks pieces up by string
		for k := 1; k < len(p); k++ {
			for _, a := range byPiece[p[:k]] {
				for _, b := range byPiece[p[k:]] {
					e.merges[pairKey(a, b)] = int32(merged)
				}
			}
		}
	}
	return e
}

// Encode returns the ids of text, without BOS or EOS.
func (e *Encoder) Encode(text string) ([]int32, error) {
	if text == "" {
		return nil, nil
	}
	text = " " + text
	// Initial tokens: one per character, or its byte tokens.
	var toks []int32
	for i := 0; i < len(text); {
		j := i + 1
		for j < len(text) && text[j]&0xC0 == 0x80 && j-i < 4 {
			j++
		}
		if id, ok := e.tok.Lookup(text[i:j]); ok {
			toks = append(toks, int32(id))
		} else {
			for k := i; k < j; k++ {
				id := e.byteIDs[text[k]]
				if id < 0 {
					return nil, fmt.Errorf("byte 0x%02X at offset %d has no token", text[k], k-1)
				}
				toks = append(toks, id)
			}
		}
		i = j
	}
	return e.merge(toks), nil
}

// merge applies the merges with a priority queue over a linked list. Node
// indices keep the left-to-right order, so "leftmost" is "smallest index".
func (e *Encoder) merge(toks []int32) []int32 {
	n := len(toks)
	next := make([]int32, n)
	prev := make([]int32, n)
	for i := range n {
		next[i], prev[i] = int32(i+1), int32(i-1)
	}
	next[n-1] = -1
	var q candHeap
	push := func(i int32) {
		j := next[i]
		if j < 0 {
			return
		}
		if id, ok := e.merges[pairKey(toks[i], toks[j])]; ok {
			heap.Push(&q, cand{e.scores[id], i, toks[i], toks[j], id})
		}
	}
	for i := range n - 1 {
		push(int32(i))
	}
	for q.Len() > 0 {
		c := heap.Pop(&q).(cand)
		i := c.pos
		j := next[i]
		if toks[i] != c.left || j < 0 || toks[j] != c.right {
			continue // stale: one side has merged since
		}
		toks[i] = c.id
		k := next[j]
		next[i] = k
		if k >= 0 {
			prev[k] = i
		}
		toks[j] = -1
		if p := prev[i]; p >= 0 {
			push(p)
		}
		push(i)
	}
	out := toks[:0]
	for i := int32(0); i >= 0; i = next[i] {
		out = append(out, toks[i])
	}
	return out
}

type cand struct {
	score       float32
	pos         int32
	left, right int32
	id          int32
}

// candHeap pops the highest score first, then the leftmost position.
type candHeap []cand

// Len, Less, Swap, Push and Pop implement heap.Interface.
func (h candHeap) Len() int { return len(h) }
func (h candHeap) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score > h[j].score
	}
	return h[i].pos < h[j].pos
}
func (h candHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *candHeap) Push(x any)   { *h = append(*h, x.(cand)) }
func (h *candHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// EncodeDocuments encodes many documents in parallel and joins them into
// one token stream, each document as BOS, its tokens, EOS.
func (e *Encoder) EncodeDocuments(docs []string) ([]uint16, error) {
	workers := runtime.GOMAXPROCS(0)
	enc := make([][]int32, len(docs))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(docs); i += workers {
				ids, err := e.Encode(docs[i])
				if err != nil {
					errs[w] = fmt.Errorf("document %d: %w", i, err)
					return
				}
				enc[i] = ids
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	bos, eos := uint16(e.tok.BOS()), uint16(e.tok.EOS())
	var out []uint16
	for _, ids := range enc {
		out = append(out, bos)
		for _, id := range ids {
			out = append(out, uint16(id))
		}
		out = append(out, eos)
	}
	return out, nil
}
