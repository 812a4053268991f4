package decoding

// BanRepeatedNGrams forbids, in place, every token that would complete an
// n-gram (a run of n tokens) already present in history: if the last n-1
// tokens were seen before, followed by token t, then t is banned now (HF's
// no_repeat_ngram_size). With n = 1 every token already used is banned. n ≤ 0
// or a history shorter than n-1 tokens bans nothing.
func BanRepeatedNGrams(logits []float32, history []int, n int) {
	if n <= 0 || len(history) < n-1 {
		return
	}
	prefix := history[len(history)-(n-1):]
	// Every earlier window history[i : i+n] whose first n-1 tokens equal the
	// current prefix names a token that must not follow again.
	for i := 0; i+n <= len(history); i++ {
		if equalInts(history[i:i+n-1], prefix) {
			if t := history[i+n-1]; t >= 0 && t < len(logits) {
				logits[t] = banned
			}
		}
	}
}

func equalInts(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}
