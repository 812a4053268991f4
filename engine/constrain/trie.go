package constrain

import (
	"bytes"
	"fmt"
	"slices"
)

// Vocabulary is what a constraint needs to know of a model's tokens: the
// bytes each one stands for, and which ones end the text. It is immutable
// and safe for concurrent use.
//
// The texts are kept as a trie laid out in depth-first order: node i has
// a byte, a depth, the tokens whose text ends there, and the index of the
// first node after its subtree, so a walk can skip a subtree whose prefix
// the language refuses in one step.
type Vocabulary struct {
	texts [][]byte
	end   []bool

	nodeByte  []byte
	nodeDepth []int32
	nodeSkip  []int32 // first node after node i's subtree
	nodeToks  []int32 // tokens ending at node i: toks[nodeToks[i]:nodeToks[i+1]]
	toks      []int32
	endIDs    []int32
	maxDepth  int

	byLen []int32 // the tokens with a text, longest first
}

// MaxTokenBytes bounds the text of one token.
const MaxTokenBytes = 1 << 10

// NewVocabulary makes a vocabulary of len(texts) tokens: texts[id] is the
// text of token id, as it appears in the output. A token with an empty
// text — a control token such as <|im_start|>, an unused slot — is never
// allowed, unless it is listed in end: end tokens end the text, and are
// allowed only where the text is complete.
func NewVocabulary(texts [][]byte, end []int) (*Vocabulary, error) {
	if len(texts) == 0 {
		return nil, fmt.Errorf("empty vocabulary: no tokens to choose from")
	}
	v := &Vocabulary{texts: make([][]byte, len(texts)), end: make([]bool, len(texts))}
	for _, id := range end {
		if id < 0 || id >= len(texts) {
			return nil, fmt.Errorf("end token %d is outside the vocabulary (0..%d)", id, len(texts)-1)
		}
		if !v.end[id] {
			v.end[id] = true
			v.endIDs = append(v.endIDs, int32(id))
		}
	}
	order := make([]int32, 0, len(texts))
	for id, t := range texts {
		if len(t) > MaxTokenBytes {
			return nil, fmt.Errorf("token %d is %d bytes long, more than the %d a token may have", id, len(t), MaxTokenBytes)
		}
		if v.end[id] || len(t) == 0 {
			continue
		}
		v.texts[id] = slices.Clone(t)
		order = append(order, int32(id))
	}
	slices.SortStableFunc(order, func(a, b int32) int { return bytes.Compare(v.texts[a], v.texts[b]) })
	// Nodes in depth-first order: each text adds the nodes past its common
	// prefix with the text before it.
	var path []int32 // node index at each depth of the previous text
	var prev []byte
	for _, id := range order {
		t := v.texts[id]
		lcp := 0
		for lcp < len(t) && lcp < len(prev) && t[lcp] == prev[lcp] {
			lcp++
		}
		path = path[:lcp]
		for d := lcp; d < len(t); d++ {
			path = append(path, int32(len(v.nodeByte)))
			v.nodeByte = append(v.nodeByte, t[d])
			v.nodeDepth = append(v.nodeDepth, int32(d+1))
			v.nodeToks = append(v.nodeToks, int32(len(v.toks)))
		}
		// The token ends at the last node of its path; tokens sharing a
		// text share the node, and are consecutive in order.
		v.toks = append(v.toks, id)
		v.maxDepth = max(v.maxDepth, len(t))
		prev = t
	}
	v.nodeToks = append(v.nodeToks, int32(len(v.toks)))
	v.byLen = slices.Clone(order)
	slices.SortStableFunc(v.byLen, func(a, b int32) int { return len(v.texts[b]) - len(v.texts[a]) })
	// A node's tokens were appended after it and before the next node, so
	// nodeToks[i]..nodeToks[i+1] are exactly the tokens ending at node i.
	v.nodeSkip = make([]int32, len(v.nodeByte))
	var stack []int32
	for i := range v.nodeByte {
		d := v.nodeDepth[i]
		for len(stack) > 0 && v.nodeDepth[stack[len(stack)-1]] >= d {
			v.nodeSkip[stack[len(stack)-1]] = int32(i)
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, int32(i))
	}
	for _, s := range stack {
		v.nodeSkip[s] = int32(len(v.nodeByte))
	}
	return v, nil
}

// longer returns the tokens whose text is longer than n bytes.
func (v *Vocabulary) longer(n int32) []int32 {
	k, _ := slices.BinarySearchFunc(v.byLen, n, func(id, n int32) int {
		// byLen is by decreasing length: "before n" is longer than n.
		if int32(len(v.texts[id])) > n {
			return -1
		}
		return 1
	})
	return v.byLen[:k]
}

// Size is the number of tokens.
func (v *Vocabulary) Size() int { return len(v.texts) }

// Text returns the text of token id (nil for end and control tokens). It
// must not be modified.
func (v *Vocabulary) Text(id int) []byte {
	if id < 0 || id >= len(v.texts) {
		return nil
	}
	return v.texts[id]
}

// IsEnd reports whether token id ends the text.
func (v *Vocabulary) IsEnd(id int) bool { return id >= 0 && id < len(v.end) && v.end[id] }
