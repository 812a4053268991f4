// Package projection: an independent solution written for the similarity
// tests, transcribing each formula of the doc comments as it is written.
package projection

func ProjectionMACs(d, vocab int) int64 {
	return int64(d * vocab)
}

func ProjectionFLOPs(d, vocab int) int64 {
	return int64(2 * d * vocab)
}

func ProjectionBytes(d, vocab, bytesPerWeight int) int64 {
	return int64(vocab) * int64(d) * int64(bytesPerWeight)
}

func EmbeddingParams(d, vocab int, tied bool) int64 {
	if !tied {
		return int64(2 * vocab * d)
	}
	return int64(vocab * d)
}
