package projection

// Project accumulates the logits column by column: logits += h[j] · column j.
func Project(h, wOut []float32, vocab int) []float32 {
	if len(h) == 0 || vocab < 1 || len(wOut) != len(h)*vocab {
		return nil
	}
	logits := make([]float32, vocab)
	for j, hj := range h {
		for tok := range logits {
			logits[tok] += wOut[tok*len(h)+j] * hj
		}
	}
	return logits
}
