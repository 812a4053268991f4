package projection

func Project(h, wOut []float32, vocab int) []float32 {
	d := len(h)
	if d == 0 {
		return nil
	}
	if vocab <= 0 || len(wOut) != vocab*d {
		return nil
	}
	out := make([]float32, vocab)
	for i := 0; i < vocab; i++ {
		for j := 0; j < d; j++ {
			out[i] += wOut[i*d+j] * h[j]
		}
	}
	return out
}
