package experiment

import (
	"context"
	"math"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

// Small measures the later notebooks share: the best time of a few runs,
// a greedy continuation, and the work of one decode step.

// BestTime runs f the given number of times (at least once) and returns the
// shortest time: the run least disturbed by other work on the machine.
func BestTime(runs int, f func()) time.Duration {
	best := time.Duration(math.MaxInt64)
	for range max(1, runs) {
		start := time.Now()
		f()
		best = min(best, time.Since(start))
	}
	return best
}

// Milliseconds is d in milliseconds, for printing with %.1f.
func Milliseconds(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// GreedyTokens returns the greedy continuation of prompt under lm: up to
// maxNew tokens, ending early after a token for which isEnd reports true
// (nil: none does).
func GreedyTokens(lm decoding.LM, prompt []int, maxNew int, isEnd func(id int) bool) ([]int, error) {
	var out []int
	for step, err := range decoding.Decode(context.Background(), lm, prompt, decoding.Options{MaxNewTokens: maxNew, IsEnd: isEnd}) {
		id := step.ID
		if err != nil {
			return out, err
		}
		out = append(out, id)
	}
	return out, nil
}

// StepFLOPs is the work of one decode step of a model of shape c, in
// floating-point operations: in total, and in the vocabulary projection
// alone.
func StepFLOPs(c engine.Config) (total, vocab int64) {
	for part, cost := range c.StepCost(1) {
		total += cost.FLOPs
		if engine.Part(part) == engine.PartVocab {
			vocab = cost.FLOPs
		}
	}
	return total, vocab
}
