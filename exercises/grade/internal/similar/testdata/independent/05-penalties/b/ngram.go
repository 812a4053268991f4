package penalties

import "math"

// BanRepeatedNGrams walks back from every earlier position and compares
// the n-1 tokens before it with the n-1 tokens that end the history.
func BanRepeatedNGrams(logits []float32, history []int, n int) {
	ctx := n - 1
	if n <= 0 || len(history) < ctx {
		return
	}
	last := len(history)
	for pos := last - 1; pos >= ctx; pos-- {
		same := true
		for d := 1; d <= ctx; d++ {
			if history[pos-d] != history[last-d] {
				same = false
				break
			}
		}
		if same {
			logits[history[pos]] = float32(math.Inf(-1))
		}
	}
}
