package projection

// ProjectionMACs is the number of multiply-adds in one step's projection:
// one dot product of length d for each of the vocab tokens.
func ProjectionMACs(d, vocab int) int64 {
	return int64(d) * int64(vocab)
}

// ProjectionFLOPs counts the same work in floating-point operations, two
// per multiply-add.
func ProjectionFLOPs(d, vocab int) int64 {
	return 2 * ProjectionMACs(d, vocab)
}

// ProjectionBytes is how many bytes of W_out one step reads: each of its
// vocab × d weights once, bytesPerWeight bytes each. A decode step uses
// each weight for a single multiply-add, so this, not the arithmetic, is
// usually what limits its speed.
func ProjectionBytes(d, vocab, bytesPerWeight int) int64 {
	return ProjectionMACs(d, vocab) * int64(bytesPerWeight)
}

// EmbeddingParams is the number of parameters in the input embedding and
// the output matrix together: one vocab × d matrix when they are tied, two
// when they are not.
func EmbeddingParams(d, vocab int, tied bool) int64 {
	n := int64(d) * int64(vocab)
	if tied {
		return n
	}
	return 2 * n
}
