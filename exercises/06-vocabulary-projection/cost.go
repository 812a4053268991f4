package projection

// ProjectionMACs is the number of multiply-adds in one step's projection
// for a hidden state of d numbers and a vocabulary of vocab tokens: one dot
// product of length d per token. Task 2.
//
// Example: d = 4096, vocab = 50,000 gives 204,800,000.
func ProjectionMACs(d, vocab int) int64 {
	return 0
}

// ProjectionFLOPs is the same work counted in floating-point operations,
// the unit of engine/cost.go: a multiply-add is two operations (a multiply
// and an add), so 2·d·vocab. Task 2.
func ProjectionFLOPs(d, vocab int) int64 {
	return 0
}

// ProjectionBytes is how many bytes of W_out one step reads: every one of
// its vocab × d weights once, each bytesPerWeight bytes (4 for float32, 2
// for 16-bit floats, 1 for 8-bit quantised weights). Task 2.
//
// Example: d = 4096, vocab = 50,000, bytesPerWeight = 2 gives 409,600,000
// bytes, about 400 MB — read again at every step.
func ProjectionBytes(d, vocab, bytesPerWeight int) int64 {
	return 0
}

// EmbeddingParams is the number of parameters the input embedding and the
// output matrix hold together. Both have vocab rows of d numbers. When tied
// is true the model uses one matrix for both (the embedding doubles as
// W_out), so they hold vocab·d parameters; when tied is false they are two
// matrices, 2·vocab·d. Task 2.
func EmbeddingParams(d, vocab int, tied bool) int64 {
	return 0
}
