package penalties

import "math"

func Recent(history []int, window int) []int {
	if window > 0 && window < len(history) {
		start := len(history) - window
		return history[start:]
	}
	return history
}

type Penalties struct {
	Repetition    float64
	Presence      float64
	Frequency     float64
	Window        int
	NoRepeatNGram int
}

func (p Penalties) Apply(logits []float32, history []int) {
	backup := make([]float32, len(logits))
	copy(backup, logits)
	window := Recent(history, p.Window)
	if p.Repetition != 1 && p.Repetition != 0 {
		ApplyRepetitionPenalty(logits, window, p.Repetition)
	}
	ApplyPresenceFrequencyPenalty(logits, window, p.Presence, p.Frequency)
	if p.NoRepeatNGram != 0 {
		BanRepeatedNGrams(logits, history, p.NoRepeatNGram)
	}
	allBanned := true
	for i := range logits {
		if !math.IsInf(float64(logits[i]), -1) {
			allBanned = false
			break
		}
	}
	if allBanned {
		copy(logits, backup)
	}
}
