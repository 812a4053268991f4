package bpe

// Both merges, SentencePiece's by score (sentencepiece.go) and byte-level
// BPE's by rank (merges.go), repeatedly take the best of the pairs waiting
// to be merged, while merging adds new pairs: a binary heap. (container/heap
// would do, but it boxes every element it is given in an interface, an
// allocation per pair; these typed helpers do not.)

// heapPush adds x to the heap q, in which less(q[i], q[j]) orders the
// best first.
func heapPush[T any](q []T, x T, less func(a, b T) bool) []T {
	q = append(q, x)
	for i := len(q) - 1; i > 0; {
		parent := (i - 1) / 2
		if !less(q[i], q[parent]) {
			break
		}
		q[i], q[parent] = q[parent], q[i]
		i = parent
	}
	return q
}

// heapPop removes and returns the best element of the heap q.
func heapPop[T any](q []T, less func(a, b T) bool) (T, []T) {
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q = q[:last]
	for i := 0; ; {
		best, l, r := i, 2*i+1, 2*i+2
		if l < len(q) && less(q[l], q[best]) {
			best = l
		}
		if r < len(q) && less(q[r], q[best]) {
			best = r
		}
		if best == i {
			break
		}
		q[i], q[best] = q[best], q[i]
		i = best
	}
	return top, q
}
