package penalties

import (
	"math"
	"slices"
)

func Recent(history []int, window int) []int {
	switch {
	case window <= 0:
		return history
	case window >= len(history):
		return history
	default:
		return history[len(history)-window:]
	}
}

type Penalties struct {
	Repetition    float64 // 0 or 1: off
	Presence      float64
	Frequency     float64
	Window        int
	NoRepeatNGram int
}

func (p Penalties) Apply(logits []float32, history []int) {
	original := slices.Clone(logits)
	h := Recent(history, p.Window)
	if r := p.Repetition; r != 0 && r != 1 {
		ApplyRepetitionPenalty(logits, h, r)
	}
	if p.Presence != 0 || p.Frequency != 0 {
		ApplyPresenceFrequencyPenalty(logits, h, p.Presence, p.Frequency)
	}
	if p.NoRepeatNGram > 0 {
		BanRepeatedNGrams(logits, history, p.NoRepeatNGram)
	}
	if slices.ContainsFunc(logits, func(z float32) bool { return !math.IsInf(float64(z), -1) }) {
		return
	}
	copy(logits, original)
}
