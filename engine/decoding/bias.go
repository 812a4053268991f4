package decoding

// ApplyLogitBias adds a caller-chosen offset to the logits of particular
// tokens, in place: logits[id] += bias[id]. A large negative bias (or -Inf)
// effectively bans a token; a positive one makes it more likely. It is the
// first stage of the sampler: the caller's wishes come before anything the
// sampler decides on its own (OpenAI's logit_bias, HF's SequenceBias).
func ApplyLogitBias(logits []float32, bias map[int]float32) {
	for id, b := range bias {
		if id >= 0 && id < len(logits) {
			logits[id] += b
		}
	}
}
