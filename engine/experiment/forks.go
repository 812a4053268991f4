package experiment

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

// Where samples of one prompt part ways (notebook 11): samples kept step by
// step, the count of distinct continuations, the first fork, the pair that
// stayed together longest, and a sample forked at a chosen step.

// SampleSteps generates up to n tokens after prompt with decoding.Generate at
// temperature with seed, and returns every step (token, text,
// log-probability).
func SampleSteps(m *engine.Model, tok *engine.Tokenizer, prompt string, n int, temperature float64, seed uint64) ([]decoding.Step, error) {
	var steps []decoding.Step
	opts := decoding.Options{MaxNewTokens: n, Temperature: temperature, Seed: seed}
	for step, err := range decoding.Generate(context.Background(), m, tok, prompt, opts) {
		if err != nil {
			return steps, err
		}
		steps = append(steps, step)
	}
	return steps, nil
}

// StepIDs returns the token ids of steps.
func StepIDs(steps []decoding.Step) []int {
	out := make([]int, len(steps))
	for i, s := range steps {
		out[i] = s.ID
	}
	return out
}

// MeanLogProb is the average log-probability the model gave the tokens of
// steps (0 for no steps): how confident it was in what it wrote.
func MeanLogProb(steps []decoding.Step) float64 {
	if len(steps) == 0 {
		return 0
	}
	total := 0.0
	for _, s := range steps {
		total += s.LogProb
	}
	return total / float64(len(steps))
}

// DistinctCurve returns, for every k from 0 to the longest sample's length,
// how many different token sequences the samples' first k tokens form (a
// sample shorter than k counts as all of itself). It starts at 1 (every
// sample starts from the same prompt) and never goes down.
func DistinctCurve(samples [][]int) []int {
	longest := 0
	for _, s := range samples {
		longest = max(longest, len(s))
	}
	curve := make([]int, longest+1)
	for k := range curve {
		seen := map[string]bool{}
		for _, s := range samples {
			seen[fmt.Sprint(s[:min(k, len(s))])] = true
		}
		curve[k] = len(seen)
	}
	return curve
}

// FirstFork returns the first position where the samples do not all have
// the same token, and false if there is none (they agree as far as the
// shortest one goes).
func FirstFork(samples [][]int) (int, bool) {
	if len(samples) == 0 {
		return 0, false
	}
	shortest := len(samples[0])
	for _, s := range samples {
		shortest = min(shortest, len(s))
	}
	for k := range shortest {
		for _, s := range samples[1:] {
			if s[k] != samples[0][k] {
				return k, true
			}
		}
	}
	return shortest, false
}

// SharedPrefix is the number of leading tokens a and b have in common.
func SharedPrefix(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// LongestSharedPair returns the two samples (a < b) that share the most
// leading tokens and then differ, with the number they share; ok is false
// when no two samples differ within their lengths. Ties go to the first
// pair found.
func LongestSharedPair(samples [][]int) (a, b, shared int, ok bool) {
	shared = -1
	for i := range samples {
		for j := i + 1; j < len(samples); j++ {
			n := SharedPrefix(samples[i], samples[j])
			if n < min(len(samples[i]), len(samples[j])) && n > shared {
				a, b, shared = i, j, n
			}
		}
	}
	if shared < 0 {
		return 0, 0, 0, false
	}
	return a, b, shared, true
}

// MeanSD returns the mean of values and their sample standard deviation
// (divided by n − 1; 0 for fewer than two values).
func MeanSD(values []float64) (mean, sd float64) {
	if len(values) == 0 {
		return 0, 0
	}
	for _, v := range values {
		mean += v
	}
	mean /= float64(len(values))
	if len(values) < 2 {
		return mean, 0
	}
	for _, v := range values {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(values)-1))
}

// SeededSample draws up to n tokens after prompt from lm with the engine's
// sampler at temperature, seeded with seed: the tokens decoding.Generate makes
// with the same settings. It stops after a token for which isEnd reports
// true (kept; nil: none does).
func SeededSample(lm decoding.LM, prompt []int, n int, temperature float64, seed uint64, isEnd func(int) bool) ([]int, error) {
	sampler, err := decoding.NewSampler(temperature, 1, seed)
	if err != nil {
		return nil, err
	}
	var drawErr error
	pick := func(logits []float32) int {
		id, err := sampler.Sample(logits)
		if err != nil && drawErr == nil {
			drawErr = err
		}
		return id
	}
	var out []int
	for step, err := range decoding.Decode(context.Background(), lm, prompt, decoding.Options{MaxNewTokens: n, Decoder: decoding.Pick(pick), IsEnd: isEnd}) {
		id := step.ID
		if err != nil {
			return out, err
		}
		if drawErr != nil {
			return out, drawErr
		}
		out = append(out, id)
	}
	return out, drawErr
}

// Fork is a sample (the trunk) and a branch of it: the branch keeps the
// trunk's first At tokens and draws the rest with a generator of its own
// seed.
type Fork struct {
	Prompt        []int
	Trunk, Branch []int
	Step          int // the branching step asked for
	At            int // where the branch starts drawing: Step, or the trunk's end if it is shorter
	// Parted is the first position where trunk and branch differ (the
	// shorter one's length if they never do).
	Parted int
	// TrunkProb and BranchProb are the probabilities the model gave the
	// two tokens at Parted (0 where a text has ended).
	TrunkProb, BranchProb float64
}

// ForkSample samples a trunk of up to n tokens after prompt (temperature,
// seed), then forks it at step k: the branch is trunk[:k] followed by
// SeededSample of the rest with branchSeed. A trunk of k tokens or fewer is
// the branch as well.
func ForkSample(lm decoding.LM, prompt []int, n, k int, temperature float64, seed, branchSeed uint64, isEnd func(int) bool) (Fork, error) {
	if k < 0 {
		return Fork{}, fmt.Errorf("branch at step %d: the step cannot be negative", k)
	}
	trunk, err := SeededSample(lm, prompt, n, temperature, seed, isEnd)
	if err != nil {
		return Fork{}, err
	}
	f := Fork{Prompt: prompt, Trunk: trunk, Step: k, At: min(k, len(trunk))}
	rest, err := SeededSample(lm, slices.Concat(prompt, trunk[:f.At]), n-f.At, temperature, branchSeed, isEnd)
	if err != nil {
		return f, err
	}
	if len(trunk) <= k {
		rest = nil
	}
	f.Branch = slices.Concat(trunk[:f.At], rest)
	f.Parted = SharedPrefix(f.Trunk, f.Branch)
	if f.Parted < max(len(f.Trunk), len(f.Branch)) {
		rows, err := lm.NextLogits(slices.Concat(prompt, trunk[:f.Parted]), 1)
		if err != nil {
			return f, err
		}
		probs := lateTempered(rows[0], temperature)
		if f.Parted < len(f.Trunk) {
			f.TrunkProb = probs[f.Trunk[f.Parted]]
		}
		if f.Parted < len(f.Branch) {
			f.BranchProb = probs[f.Branch[f.Parted]]
		}
	}
	return f, nil
}

// lateTempered is softmax(logits / temperature); temperature 0 counts as 1.
func lateTempered(logits []float32, temperature float64) []float64 {
	if temperature <= 0 {
		temperature = 1
	}
	z := make([]float32, len(logits))
	for i, l := range logits {
		z[i] = float32(float64(l) / temperature)
	}
	return decoding.Softmax(z)
}
