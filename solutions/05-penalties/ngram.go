package penalties

import (
	"math"
	"slices"
)

// BanRepeatedNGrams sets to -Inf, in place, the logit of every token that
// would complete an n-gram (a run of n tokens) already present in history
// (Task 3): if the last n-1 tokens of history occurred earlier followed by
// token t, t is banned now. This is Hugging Face's no_repeat_ngram_size.
// With n = 1 every token in history is banned. n ≤ 0, or a history shorter
// than n-1 tokens, bans nothing.
//
// Example: history [1 2 3 1 2], n = 3: the text ends with "1 2", which was
// followed by 3 before, so token 3 is banned.
func BanRepeatedNGrams(logits []float32, history []int, n int) {
	if n <= 0 || len(history) < n-1 {
		return
	}
	prefix := history[len(history)-(n-1):]
	// Every window history[i:i+n] that starts with the current prefix names
	// a token that must not follow it again.
	for i := 0; i+n <= len(history); i++ {
		if slices.Equal(history[i:i+n-1], prefix) {
			logits[history[i+n-1]] = float32(math.Inf(-1))
		}
	}
}
