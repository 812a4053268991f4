package experiment

import (
	"fmt"
)

// Measures of repetition for lesson 3 (greedy decoding): how much of a text
// repeats what it already said, and whether it ends stuck in a loop.

// RepeatedNGramRate returns the share of the n-grams of ids (every run of n
// consecutive tokens) that already occurred earlier in ids: 0 when no
// n-gram repeats, close to 1 when the text is one loop. For
// [1 2 3 1 2 3 1 2] and n = 2 the 2-grams are 12 23 31 12 23 31 12, of which
// the last 4 were seen before: 4/7. A text with no n-gram (shorter than n,
// or n < 1) has rate 0.
func RepeatedNGramRate(ids []int, n int) float64 {
	if n < 1 || len(ids) < n {
		return 0
	}
	seen := map[string]bool{}
	total, repeated := 0, 0
	for i := 0; i+n <= len(ids); i++ {
		key := fmt.Sprint(ids[i : i+n])
		if seen[key] {
			repeated++
		}
		seen[key] = true
		total++
	}
	return float64(repeated) / float64(total)
}

// RepetitionCurve returns, for each length in lengths, the mean of
// RepeatedNGramRate over the first length tokens of every text: whether
// repetition builds up as a text goes on. A text shorter than a length
// counts with all it has. No texts give a curve of zeros.
func RepetitionCurve(texts [][]int, n int, lengths []int) []float64 {
	curve := make([]float64, len(lengths))
	if len(texts) == 0 {
		return curve
	}
	for i, l := range lengths {
		for _, t := range texts {
			curve[i] += RepeatedNGramRate(t[:min(l, len(t))], n)
		}
		curve[i] /= float64(len(texts))
	}
	return curve
}

// EndsInLoop reports whether the last tail tokens of ids are one stretch of
// at most tail/2 tokens said again and again: whether the text ends stuck
// in a loop. [… 7 8 9 7 8 9 7 8 9] ends in a loop of period 3 for any tail
// the loop covers; a text shorter than tail never does.
func EndsInLoop(ids []int, tail int) bool {
	if tail < 2 || len(ids) < tail {
		return false
	}
	for period := 1; period <= tail/2; period++ {
		loop := true
		for i := len(ids) - tail + period; i < len(ids); i++ {
			if ids[i] != ids[i-period] {
				loop = false
				break
			}
		}
		if loop {
			return true
		}
	}
	return false
}

// LoopShare returns the share of texts that end in a loop (EndsInLoop with
// the last tail tokens); 0 for no texts.
func LoopShare(texts [][]int, tail int) float64 {
	if len(texts) == 0 {
		return 0
	}
	n := 0
	for _, t := range texts {
		if EndsInLoop(t, tail) {
			n++
		}
	}
	return float64(n) / float64(len(texts))
}

// Stretches cuts every text into consecutive stretches of length tokens,
// starting every step tokens (step = length: side by side; step = 2×length:
// every other one), and returns them; the end of a text too short for a
// whole stretch is left out. The stretches share the texts' storage.
func Stretches(texts [][]int, length, step int) [][]int {
	if length < 1 || step < 1 {
		panic(fmt.Sprintf("experiment.Stretches: length %d and step %d must be positive", length, step))
	}
	var out [][]int
	for _, t := range texts {
		for start := 0; start+length <= len(t); start += step {
			out = append(out, t[start:start+length:start+length])
		}
	}
	return out
}
