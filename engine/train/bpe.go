package train

import (
	"container/heap"
	"context"
	"fmt"
	"sort"
	"unicode"
	"unicode/utf8"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/parallel"
)

// The fixed start of every vocabulary the trainer makes, as in llama2.c:
// <unk>, <s> (BOS), </s> (EOS), then the 256 byte-fallback tokens
// <0x00>..<0xFF>.
const (
	numSpecial   = 3
	firstByteID  = numSpecial
	numFixed     = numSpecial + 256
	maxVocabSize = 1 << 16 // token ids are stored as uint16
	// MaxPieceBytes caps the length of a learned token.
	MaxPieceBytes = 24
)

// MinVocabSize is the smallest vocabulary the tokenizer trainer accepts:
// the three special tokens and the 256 byte tokens, plus at least one
// learned token.
const MinVocabSize = numFixed + 1

// TrainTokenizer learns a byte-pair-encoding vocabulary of vocabSize tokens
// from texts, and returns it as a tokenizer the engine can use and save as
// a llama2.c tokenizer.bin.
//
// The vocabulary is laid out as the engine's Encode expects: ids 0..2 are
// <unk>, <s> and </s>; ids 3..258 are the byte-fallback tokens; then come the
// base characters (every character frequent enough to deserve its own
// token, most frequent first), then the learned merges in the order they
// were learned. A merge's score is minus its rank, so the engine, which
// merges the highest-scoring pair first, replays them in training order.
// Characters that are not base characters are encoded as their bytes and
// never merged.
//
// Training follows the classic algorithm: the text (with the leading space
// the engine adds) is cut into word-like chunks, identical chunks are
// counted once with their frequency, and the most frequent adjacent pair of
// tokens is merged again and again, updating only the chunks that contain
// it. Merges never cross a chunk boundary and never make a token longer
// than MaxPieceBytes.
func TrainTokenizer(texts []string, vocabSize int) (*engine.Tokenizer, error) {
	return TrainTokenizerContext(context.Background(), texts, vocabSize)
}

// TrainTokenizerContext is TrainTokenizer that stops soon after ctx is
// done — between texts while counting chunks, between merges after — with
// an error wrapping ErrInterrupted.
func TrainTokenizerContext(ctx context.Context, texts []string, vocabSize int) (*engine.Tokenizer, error) {
	if vocabSize < MinVocabSize {
		return nil, fmt.Errorf("vocabulary size %d is too small: the 3 special tokens and 256 byte tokens need %d ids, so it must be at least %d", vocabSize, numFixed, MinVocabSize)
	}
	if vocabSize > maxVocabSize {
		return nil, fmt.Errorf("vocabulary size %d is too large (at most %d)", vocabSize, maxVocabSize)
	}
	chunks := countChunks(ctx, texts)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w while counting the corpus for the tokenizer: %v", ErrInterrupted, err)
	}
	if len(chunks) == 0 {
		return nil, fmt.Errorf("cannot train a tokenizer on an empty corpus")
	}

	pieces := []string{"<unk>", "<s>", "</s>"}
	for b := range 256 {
		pieces = append(pieces, fmt.Sprintf("<0x%02X>", b))
	}
	scores := make([]float32, len(pieces))

	// Base characters: every printable ASCII character, tab and newline,
	// plus the other characters that make up at least one in 100,000 of
	// the text, most frequent first, up to an eighth of the learnable ids.
	// Rarer characters are spelled with byte tokens.
	chars := map[rune]int64{}
	var total int64
	for w, n := range chunks {
		for _, r := range w {
			chars[r] += n
			total += n
		}
	}
	type rc struct {
		r rune
		n int64
	}
	var byFreq []rc
	for r, n := range chars {
		if r != utf8.RuneError {
			byFreq = append(byFreq, rc{r, n})
		}
	}
	sort.Slice(byFreq, func(i, j int) bool {
		if byFreq[i].n != byFreq[j].n {
			return byFreq[i].n > byFreq[j].n
		}
		return byFreq[i].r < byFreq[j].r
	})
	ids := map[string]int32{}
	for i, p := range pieces {
		ids[p] = int32(i)
	}
	maxBase := max((vocabSize-numFixed)/8, 1)
	for _, c := range byFreq {
		if len(pieces)-numFixed >= maxBase {
			break
		}
		ascii := c.r == '\t' || c.r == '\n' || (c.r >= ' ' && c.r <= '~')
		if !ascii && c.n*100000 < total {
			continue
		}
		p := string(c.r)
		if _, dup := ids[p]; dup {
			continue
		}
		ids[p] = int32(len(pieces))
		pieces = append(pieces, p)
		scores = append(scores, 0)
	}
	firstMergeable := int32(numFixed) // byte tokens and specials never merge

	// Words: each distinct chunk as a sequence of token ids.
	keys := make([]string, 0, len(chunks))
	for w := range chunks {
		keys = append(keys, w)
	}
	sort.Strings(keys) // deterministic order
	words := make([][]int32, len(keys))
	freqs := make([]int64, len(keys))
	for i, w := range keys {
		freqs[i] = chunks[w]
		for _, r := range w {
			s := string(r)
			if id, ok := ids[s]; ok && r != utf8.RuneError {
				words[i] = append(words[i], id)
			} else {
				for _, b := range []byte(s) {
					words[i] = append(words[i], int32(firstByteID)+int32(b))
				}
			}
		}
	}

	st := newPairStats(words, freqs, firstMergeable)
	rank := 0
	for len(pieces) < vocabSize {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%w while training the tokenizer, at %d of %d tokens: %v", ErrInterrupted, len(pieces), vocabSize, err)
		}
		p, n, ok := st.best()
		if !ok || n < 1 {
			break // no pair left to merge
		}
		a, b := int32(p>>32), int32(p&0xFFFFFFFF)
		s := pieces[a] + pieces[b]
		if len(s) > MaxPieceBytes {
			st.ban(p)
			continue
		}
		id, exists := ids[s]
		if !exists {
			id = int32(len(pieces))
			ids[s] = id
			pieces = append(pieces, s)
			rank++
			scores = append(scores, -float32(rank))
		}
		st.merge(p, id)
	}
	return engine.NewTokenizer(pieces, scores, 0)
}

// countChunks cuts every text (with the engine's leading space) into chunks
// and counts how often each distinct chunk occurs, using all cores.
func countChunks(ctx context.Context, texts []string) map[string]int64 {
	parts := make([]map[string]int64, parallel.Workers())
	parallel.For(len(texts), true, func(w, start, end int) {
		if parts[w] == nil {
			parts[w] = map[string]int64{}
		}
		m := parts[w]
		for _, text := range texts[start:end] {
			if text == "" {
				continue
			}
			if ctx.Err() != nil {
				return
			}
			for _, c := range Chunks(" " + text) {
				m[c]++
			}
		}
	})
	var all map[string]int64
	for _, m := range parts {
		if all == nil {
			all = m // the first counts made: add the others to them
			continue
		}
		for k, v := range m {
			all[k] += v
		}
	}
	if all == nil {
		all = map[string]int64{}
	}
	return all
}

// Chunks cuts text into the pieces that BPE training never merges across:
// a word (letters, digits, underscores) with at most one leading space, a
// run of punctuation with at most one leading space, or a run of white
// space (a space right before a word or punctuation goes with it instead).
// A run of punctuation is cut after a closing bracket so that common
// endings such as ")" or "}" stay separate from what follows.
func Chunks(text string) []string {
	var out []string
	class := func(r rune) int {
		switch {
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			return 1
		case unicode.IsSpace(r):
			return 2
		default:
			return 3
		}
	}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		j := i + n
		c := class(r)
		if r == ' ' && j < len(text) {
			r2, n2 := utf8.DecodeRuneInString(text[j:])
			if c2 := class(r2); c2 != 2 {
				c = c2
				j += n2
			}
		}
		for j < len(text) {
			if c == 3 && (text[j-1] == ')' || text[j-1] == '}' || text[j-1] == ']') {
				break
			}
			r2, n2 := utf8.DecodeRuneInString(text[j:])
			if class(r2) != c {
				break
			}
			if c == 2 && r2 == ' ' && j+n2 < len(text) {
				// Leave the last space of a run for the next word.
				r3, _ := utf8.DecodeRuneInString(text[j+n2:])
				if class(r3) != 2 {
					break
				}
			}
			j += n2
		}
		out = append(out, text[i:j])
		i = j
	}
	return out
}

// pairStats keeps, for every adjacent pair of mergeable tokens, how often it
// occurs (weighted by word frequency) and which words contain it.
type pairStats struct {
	words     [][]int32
	freqs     []int64
	counts    map[uint64]int64
	where     map[uint64][]int32
	banned    map[uint64]bool
	queue     pairHeap
	seen      []int
	stamp     int
	mergeable int32
}

func pairKey(a, b int32) uint64 { return uint64(a)<<32 | uint64(uint32(b)) }

func newPairStats(words [][]int32, freqs []int64, firstMergeable int32) *pairStats {
	s := &pairStats{words: words, freqs: freqs, counts: map[uint64]int64{}, where: map[uint64][]int32{},
		banned: map[uint64]bool{}, seen: make([]int, len(words)), mergeable: firstMergeable}
	for i, w := range words {
		s.add(int32(i), w, 1)
	}
	for p, n := range s.counts {
		s.queue = append(s.queue, pairCount{p, n})
	}
	heap.Init(&s.queue)
	return s
}

// add adds sign × the word's frequency to the count of each of its pairs.
func (s *pairStats) add(wi int32, w []int32, sign int64) {
	for i := 0; i+1 < len(w); i++ {
		a, b := w[i], w[i+1]
		if a < s.mergeable || b < s.mergeable {
			continue
		}
		p := pairKey(a, b)
		s.counts[p] += sign * s.freqs[wi]
		if sign > 0 {
			s.where[p] = append(s.where[p], wi)
		}
	}
}

// best returns the most frequent pair (the smallest key among equals).
func (s *pairStats) best() (uint64, int64, bool) {
	for s.queue.Len() > 0 {
		top := s.queue[0]
		if n := s.counts[top.pair]; n != top.n || s.banned[top.pair] {
			heap.Pop(&s.queue) // stale entry
			if n > 0 && n != top.n && !s.banned[top.pair] {
				heap.Push(&s.queue, pairCount{top.pair, n})
			}
			continue
		}
		return top.pair, top.n, true
	}
	return 0, 0, false
}

func (s *pairStats) ban(p uint64) { s.banned[p] = true }

// merge replaces every occurrence of pair p with token id, updating counts
// only for the words that contain p.
func (s *pairStats) merge(p uint64, id int32) {
	a, b := int32(p>>32), int32(p&0xFFFFFFFF)
	s.stamp++
	changed := map[uint64]bool{}
	for _, wi := range s.where[p] {
		if s.seen[wi] == s.stamp {
			continue
		}
		s.seen[wi] = s.stamp
		w := s.words[wi]
		has := false
		for i := 0; i+1 < len(w); i++ {
			if w[i] == a && w[i+1] == b {
				has = true
				break
			}
		}
		if !has {
			continue
		}
		s.add(wi, w, -1)
		out := w[:0]
		for i := 0; i < len(w); i++ {
			if i+1 < len(w) && w[i] == a && w[i+1] == b {
				out = append(out, id)
				i++
			} else {
				out = append(out, w[i])
			}
		}
		s.words[wi] = out
		s.add(wi, out, +1)
		for i := 0; i+1 < len(out); i++ {
			changed[pairKey(out[i], out[i+1])] = true
		}
	}
	delete(s.where, p)
	delete(s.counts, p)
	for q := range changed {
		if n := s.counts[q]; n > 0 {
			heap.Push(&s.queue, pairCount{q, n})
		}
	}
}

type pairCount struct {
	pair uint64
	n    int64
}

// pairHeap is a max-heap of pair counts, smallest pair key first on ties.
type pairHeap []pairCount

// Len, Less, Swap, Push and Pop implement heap.Interface.
func (h pairHeap) Len() int { return len(h) }
func (h pairHeap) Less(i, j int) bool {
	if h[i].n != h[j].n {
		return h[i].n > h[j].n
	}
	return h[i].pair < h[j].pair
}
func (h pairHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pairHeap) Push(x any)   { *h = append(*h, x.(pairCount)) }
func (h *pairHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
