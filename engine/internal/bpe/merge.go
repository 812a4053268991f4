package bpe

// Both kinds of BPE merge the same way: the text is cut into pieces, and
// adjacent pieces are joined, the best join first, again and again, until
// no two pieces left join. Only what "best" means differs: SentencePiece
// joins into the token of highest score first (mergeByScore,
// sentencepiece.go), byte-level BPE makes the join its merge list names
// first (mergeWord, merges.go, scoring a join by minus its rank).
//
// Rescanning every pair of neighbours after each join would cost O(n²) for
// n pieces. Instead the pieces form a linked list, and every pair that
// joins waits in a heap, best first; a pair that comes out after either
// of its pieces has changed is skipped. That gives the same joins in
// O(n log n). (Each merge has its loop written out, with its own lookup
// inline: going through a function value for every pair would cost
// byte-level BPE, whose words are short, much of its speed.)

// A piece is a run of the text in a linked list: a character or a byte at
// first, then what joining makes of it and its right neighbours. Positions
// are int32 to keep the list and the heap small (see maxText).
type piece struct {
	start, n   int32 // n is 0 once joined to the left neighbour
	prev, next int32 // neighbours' indices, -1 at the ends
	id         int32 // its token, or None if it is not one
}

// link chains pieces in order.
func link(pieces []piece) {
	for i := range pieces {
		pieces[i].prev, pieces[i].next = int32(i-1), int32(i+1)
	}
	if len(pieces) > 0 {
		pieces[len(pieces)-1].next = -1
	}
}

// A join is a piece and its right neighbour waiting to be joined into
// token id. It is stale if either has changed since it was queued: pieces
// only grow, so then their lengths no longer add up to n. (The neighbour is
// not kept: while the left piece is unchanged it is still its next. Sixteen
// bytes a join keep the heap fast.)
type join struct {
	score float32 // higher joins first
	left  int32
	n     int32 // the joined length
	id    int32
}

// joins is a binary heap of joins: highest score first, then leftmost.
// (container/heap would do, but it boxes every element it is given in an
// interface, an allocation per join; this typed heap does not.)
type joins []join

// better orders joins: highest score first, then from left to right.
func better(a, b join) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.left < b.left
}

// push adds j to the heap.
func (h joins) push(j join) joins {
	h = append(h, j)
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !better(h[i], h[parent]) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
	return h
}

// pop removes the best join from the heap and returns it.
func (h joins) pop() (join, joins) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		best, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && better(h[l], h[best]) {
			best = l
		}
		if r < len(h) && better(h[r], h[best]) {
			best = r
		}
		if best == i {
			break
		}
		h[i], h[best] = h[best], h[i]
		i = best
	}
	return top, h
}
