package train

import "math"

// LearningRate is the schedule: a linear warm-up from 0 to peak over the
// first warmup steps (large early updates on random weights are unstable),
// then a cosine decay from peak down to floor at the last step. step counts
// from 0; steps is the total.
func LearningRate(step, steps, warmup int, peak, floor float64) float64 {
	if step < warmup {
		return peak * float64(step+1) / float64(warmup)
	}
	if steps <= warmup+1 {
		return peak
	}
	progress := float64(step-warmup) / float64(steps-warmup-1)
	progress = min(max(progress, 0), 1)
	return floor + 0.5*(peak-floor)*(1+math.Cos(math.Pi*progress))
}
