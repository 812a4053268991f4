package decoding

import (
	"cmp"
	"slices"
)

// ApplyTopK bans, in place, every token whose logit is below the k-th
// largest, so that only the k most likely tokens (and any tied with the
// k-th, as in HF transformers) can be sampled. Its weakness is that k is
// fixed: sometimes one continuation is sensible, sometimes hundreds. k ≤ 0 or
// k ≥ len(logits) keeps every token.
func ApplyTopK(logits []float32, k int) {
	if k <= 0 || k >= len(logits) {
		return
	}
	sorted := slices.Clone(logits)
	slices.SortFunc(sorted, func(a, b float32) int { return cmp.Compare(b, a) })
	kth := sorted[k-1]
	for i, z := range logits {
		if z < kth {
			logits[i] = banned
		}
	}
}
