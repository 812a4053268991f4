// Package projection: a second independent solution written for the
// similarity tests. Costs are built from a few named quantities, and the
// projection works column by column.
package projection

// weights is the size of a vocab × d matrix.
func weights(d, vocab int) int64 { return int64(vocab) * int64(d) }

func ProjectionMACs(d, vocab int) int64 { return weights(d, vocab) }

func ProjectionFLOPs(d, vocab int) int64 { return ProjectionMACs(d, vocab) << 1 }

func ProjectionBytes(d, vocab, bytesPerWeight int) int64 {
	return int64(bytesPerWeight) * weights(d, vocab)
}

func EmbeddingParams(d, vocab int, tied bool) int64 {
	matrices := int64(2)
	if tied {
		matrices = 1
	}
	return matrices * weights(d, vocab)
}
