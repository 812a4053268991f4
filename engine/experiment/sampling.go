package experiment

import (
	"cmp"
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"slices"
)

// Distributions for lessons 1, 2 and 4: the tokens ranked, how much of the
// probability the top holds, the two rules for top-p's last token, and the
// view a learner turns the sampler's knobs on.

// Ranked returns the token ids of probs from most to least likely, ties
// in order of id: Ranked([0.2 0.5 0.3]) = [1 2 0].
func Ranked(probs []float64) []int {
	ids := make([]int, len(probs))
	for i := range ids {
		ids[i] = i
	}
	slices.SortStableFunc(ids, func(a, b int) int { return cmp.Compare(probs[b], probs[a]) })
	return ids
}

// TopMass returns how much probability the k most likely tokens of probs
// hold together (all of them when k ≥ len(probs)). It adds them from the
// least likely up, so that the small ones are not lost to rounding against
// a large sum.
func TopMass(probs []float64, k int) float64 {
	top := Ranked(probs)[:max(0, min(k, len(probs)))]
	sum := 0.0
	for i := len(top) - 1; i >= 0; i-- {
		sum += probs[top[i]]
	}
	return sum
}

// TokensToCover returns how many of the most likely tokens of probs it
// takes for their probabilities to add up to at least mass: 2 for
// [0.5 0.3 0.2] and 0.8. If even every token falls short (rounding),
// len(probs).
func TokensToCover(probs []float64, mass float64) int {
	sum := 0.0
	for i, id := range Ranked(probs) {
		sum += probs[id]
		if sum >= mass {
			return i + 1
		}
	}
	return len(probs)
}

// CountBelow returns how many values of probs are less than x.
func CountBelow(probs []float64, x float64) int {
	n := 0
	for _, p := range probs {
		if p < x {
			n++
		}
	}
	return n
}

// MaxAbsDiff returns the largest |a[i] − b[i]|: how far apart two
// distributions over the same tokens are at their worst. a and b must have
// the same length.
func MaxAbsDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("experiment.MaxAbsDiff: lengths %d and %d differ", len(a), len(b)))
	}
	worst := 0.0
	for i := range a {
		worst = max(worst, abs(a[i]-b[i]))
	}
	return worst
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// Drawable returns how many tokens of a distribution a sampler could still
// draw: those of positive probability.
func Drawable(probs []float64) int {
	n := 0
	for _, p := range probs {
		if p > 0 {
			n++
		}
	}
	return n
}

// Kept lists the tokens a filter that works in place (decoding.ApplyTopP,
// decoding.ApplyMinP) left in probs: those of positive probability, in id
// order.
func Kept(probs []float32) []int {
	var ids []int
	for id, p := range probs {
		if p > 0 {
			ids = append(ids, id)
		}
	}
	return ids
}

// NucleusRule says where top-p's set of tokens ends. Both rules walk the
// tokens from most to least likely, adding up their probabilities; they
// differ only when the sum lands exactly on p.
type NucleusRule int

// String names the rule as the lessons do.
func (r NucleusRule) String() string {
	if r == AtLeastP {
		return "at least p"
	}
	return "more than p"
}

const (
	// MoreThanP keeps the smallest set whose probabilities add up to more
	// than p: the course's engine (decoding.ApplyTopP), like llama2.c.
	MoreThanP NucleusRule = iota
	// AtLeastP keeps the smallest set whose probabilities add up to p or
	// more: the nucleus-sampling paper (Holtzman et al.) and Hugging Face.
	AtLeastP
)

// Nucleus returns the tokens top-p keeps from probs under rule, most likely
// first (ties by lower id): it keeps tokens until their probabilities add
// up to more than p (MoreThanP) or to at least p (AtLeastP). With probs
// [0.5 0.25 0.125 0.125] and p = 0.75 the sum after two tokens is exactly
// 0.75: "more than p" keeps [0 1 2], "at least p" keeps [0 1]; for any p
// between the running sums, such as 0.7, both keep [0 1].
//
// Tokens of probability 0 are never kept; p ≥ 1 keeps every other token,
// and so does a sum that never gets there; p ≤ 0 keeps the most likely
// token alone (the engine's Options instead read a TopP of 0 as "off"). The sums are float64 and exact
// for probabilities like these (sums of powers of two), so the example is a
// real tie; the engine's TopP sums in float32, as llama2.c does.
func Nucleus(probs []float64, p float64, rule NucleusRule) []int {
	var kept []int
	sum := 0.0
	for _, id := range Ranked(probs) {
		if probs[id] <= 0 {
			break
		}
		kept = append(kept, id)
		sum += probs[id]
		if p < 1 && (sum > p || (rule == AtLeastP && sum == p)) {
			break
		}
	}
	return kept
}

// StageCount is how many tokens can still be drawn after one stage of the
// engine's sampler.
type StageCount struct {
	Stage string // the stage's name, as in decoding.Stage
	Left  int    // tokens of positive probability after it
}

// SamplerStages runs the engine's sampler with opts on logits (as
// decoding.Sampler.SampleTrace does) and returns the distribution after each
// stage that did something, the model's own first, with how many tokens
// each leaves. The last one is what the token is drawn from.
func SamplerStages(logits []float32, opts decoding.Options) ([]decoding.Stage, []StageCount, error) {
	s, err := opts.NewSampler(len(logits))
	if err != nil {
		return nil, nil, err
	}
	_, stages, err := s.SampleTrace(logits, nil)
	if err != nil {
		return nil, nil, err
	}
	counts := make([]StageCount, len(stages))
	for i, st := range stages {
		counts[i] = StageCount{Stage: st.Name, Left: Drawable(st.Probs)}
	}
	return stages, counts, nil
}

// ProbsOf returns softmax of logits in float32, the precision the engine's
// filters (decoding.ApplyTopP, decoding.ApplyMinP) take.
func ProbsOf(logits []float32) []float32 {
	p := decoding.Softmax(logits)
	out := make([]float32, len(p))
	for i, v := range p {
		out[i] = float32(v)
	}
	return out
}

// TopValues returns probs[t.ID] for every token t of top: a distribution's
// values at the tokens a chart shows, in the chart's order.
func TopValues(probs []float64, top []decoding.TokenLogProb) []float64 {
	vals := make([]float64, len(top))
	for i, t := range top {
		vals[i] = probs[t.ID]
	}
	return vals
}
