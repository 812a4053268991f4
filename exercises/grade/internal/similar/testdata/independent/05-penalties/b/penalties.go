// Package penalties: a second independent solution written for the
// similarity tests; it sorts a copy of the history to find distinct tokens
// and their counts.
package penalties

import "sort"

// runs calls visit once per distinct token of history with its count.
func runs(history []int, visit func(token, count int)) {
	sorted := append([]int(nil), history...)
	sort.Ints(sorted)
	i := 0
	for i < len(sorted) {
		j := i + 1
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		visit(sorted[i], j-i)
		i = j
	}
}

func ApplyRepetitionPenalty(logits []float32, history []int, penalty float64) {
	pen := float32(penalty)
	runs(history, func(token, _ int) {
		if logits[token] < 0 {
			logits[token] = logits[token] * pen
		} else {
			logits[token] = logits[token] / pen
		}
	})
}

func ApplyPresenceFrequencyPenalty(logits []float32, history []int, presence, frequency float64) {
	runs(history, func(token, count int) {
		amount := presence + float64(count)*frequency
		logits[token] = logits[token] - float32(amount)
	})
}
