package penalties

// BanRepeatedNGrams sets to -Inf (float32(math.Inf(-1))), in place, the logit
// of every token that would complete an n-gram (a run of n tokens) already
// present in history (Task 3): if the last n-1 tokens of history occurred
// earlier followed by token t, t is banned now. This is Hugging Face's
// no_repeat_ngram_size. With n = 1 every token in history is banned. n ≤ 0,
// or a history shorter than n-1 tokens, bans nothing. Leave every other
// logit as it is.
//
// Example: history [1 2 3 1 2], n = 3: the text ends with "1 2", which was
// followed by 3 before, so token 3 is banned. With n = 2 the text ends with
// "2", which was followed by 3 before: again token 3.
func BanRepeatedNGrams(logits []float32, history []int, n int) {
}
