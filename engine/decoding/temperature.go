package decoding

// ApplyTemperature divides the logits by the temperature, in place. Below 1
// it stretches the differences between logits, so softmax sharpens toward
// the most likely token; above 1 it shrinks them and the distribution
// flattens toward uniform. It never changes the order of the tokens, so it
// does not change what greedy decoding picks. Temperature 0 is handled by
// the sampler as greedy decoding and must not be passed here.
func ApplyTemperature(logits []float32, temperature float64) {
	t := float32(temperature)
	for i, z := range logits {
		logits[i] = z / t
	}
}
