package penalties

import (
	"math"
	"slices"
)

// A copy of the reference solution with its three files merged into one,
// names changed, the functions in another order, a continue turned into
// an if, and an else turned around.

func BanRepeatedNGrams(scores []float32, past []int, size int) {
	if size <= 0 || len(past) < size-1 {
		return
	}
	tail := past[len(past)-(size-1):]
	for start := 0; start+size <= len(past); start++ {
		if slices.Equal(past[start:start+size-1], tail) {
			scores[past[start+size-1]] = float32(math.Inf(-1))
		}
	}
}

func (cfg Penalties) Apply(scores []float32, past []int) {
	saved := slices.Clone(scores)
	window := Recent(past, cfg.Window)
	if cfg.Repetition != 0 && cfg.Repetition != 1 {
		ApplyRepetitionPenalty(scores, window, cfg.Repetition)
	}
	if cfg.Presence != 0 || cfg.Frequency != 0 {
		ApplyPresenceFrequencyPenalty(scores, window, cfg.Presence, cfg.Frequency)
	}
	if cfg.NoRepeatNGram > 0 {
		BanRepeatedNGrams(scores, past, cfg.NoRepeatNGram)
	}
	for _, s := range scores {
		if !math.IsInf(float64(s), -1) {
			return
		}
	}
	copy(scores, saved)
}

func ApplyRepetitionPenalty(scores []float32, past []int, penalty float64) {
	f := float32(penalty)
	done := make([]bool, len(scores))
	for _, tok := range past {
		if !done[tok] {
			done[tok] = true
			if scores[tok] <= 0 {
				scores[tok] *= f
			} else {
				scores[tok] /= f
			}
		}
	}
}

func ApplyPresenceFrequencyPenalty(scores []float32, past []int, presence, frequency float64) {
	freq := make([]int, len(scores))
	for _, tok := range past {
		freq[tok]++
	}
	for tok, c := range freq {
		if c > 0 {
			scores[tok] -= float32(presence + frequency*float64(c))
		}
	}
}

func Recent(past []int, window int) []int {
	if window <= 0 || window >= len(past) {
		return past
	}
	return past[len(past)-window:]
}

type Penalties struct {
	Repetition    float64
	Presence      float64
	Frequency     float64
	Window        int
	NoRepeatNGram int
}
