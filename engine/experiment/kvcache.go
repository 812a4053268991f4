package experiment

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

// Cumulative returns the running sums of xs: out[i] = xs[0] + … + xs[i].
func Cumulative(xs []float64) []float64 {
	out := make([]float64, len(xs))
	sum := 0.0
	for i, x := range xs {
		sum += x
		out[i] = sum
	}
	return out
}

// Positions returns 0, step, 2·step, … up to last, and last itself if it
// is not a multiple of step: the positions at which to measure a step.
func Positions(last, step int) []int {
	var out []int
	for p := 0; p <= last; p += max(step, 1) {
		out = append(out, p)
	}
	if len(out) > 0 && out[len(out)-1] != last {
		out = append(out, last)
	}
	return out
}

// RepeatTo returns ids repeated, in order, until it is n long: a context
// as long as wanted made from a short text.
func RepeatTo(ids []int, n int) []int {
	if len(ids) == 0 {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = ids[i%len(ids)]
	}
	return out
}

// LargestDifference returns the largest |a[i] − b[i]| over the indices both
// slices have.
func LargestDifference(a, b []float32) float64 {
	worst := 0.0
	for i := range min(len(a), len(b)) {
		worst = max(worst, math.Abs(float64(a[i]-b[i])))
	}
	return worst
}

// TimedSteps generates n tokens greedily after prompt through lm, one
// NextLogits question per token, and returns them with the time of every
// step (question and pick) in milliseconds.
func TimedSteps(lm decoding.LM, prompt []int, n int) (tokens []int, ms []float64) {
	seq := slices.Clone(prompt)
	for range n {
		start := time.Now()
		rows, err := lm.NextLogits(seq, 1)
		if err != nil {
			panic(err)
		}
		next := decoding.Argmax(rows[0])
		ms = append(ms, Milliseconds(time.Since(start)))
		tokens = append(tokens, next)
		seq = append(seq, next)
	}
	return tokens, ms
}

// CachedStepTimes measures the decode step with a KV cache at each of
// positions: it fills m's cache up to the largest position, then times
// State.Forward of the token at position p — one token run through the
// model, attending over the p cached positions before it — and returns,
// for each position, the best of repeats runs in milliseconds. tokens must
// have an entry for every position.
//
// The cache is filled by a real prefill of the first FillPrefix tokens;
// further positions get copies of those keys and values, in turn (a
// prefill of thousands of tokens would take seconds, and what a step
// costs depends on how many positions it attends over, not on the numbers
// in them).
func CachedStepTimes(m *engine.Model, tokens, positions []int, repeats int) ([]float64, error) {
	last := slices.Max(positions)
	if last >= len(tokens) {
		return nil, fmt.Errorf("position %d needs %d tokens, not %d", last, last+1, len(tokens))
	}
	st := m.NewState()
	if err := st.Reserve(last + 1); err != nil {
		return nil, err
	}
	prefix := min(last+1, FillPrefix)
	if _, err := st.Prefill(tokens[:prefix], 0); err != nil {
		return nil, err
	}
	for l := range m.Config.NLayers {
		for p := prefix; p <= last; p++ {
			st.Cache.CopyPosition(l, p, p%prefix)
		}
	}
	out := make([]float64, len(positions))
	var err error
	for i, p := range positions {
		// Running position p again overwrites its key and value: the
		// cache before it stays the same for every run.
		out[i] = Milliseconds(BestTime(repeats, func() {
			if _, e := st.Forward(tokens[p], p); e != nil {
				err = e
			}
		}))
	}
	return out, err
}

// FillPrefix is how many positions CachedStepTimes fills with a real
// prefill before it copies their keys and values further.
const FillPrefix = 512

// UncachedStepTimes measures the same steps as CachedStepTimes without a
// KV cache: for the logits after position p, engine.NoCacheLM runs all of
// tokens[:p+1] through the model (as one batched pass). It returns the best
// of repeats runs for each position, in milliseconds.
func UncachedStepTimes(m *engine.Model, tokens, positions []int, repeats int) ([]float64, error) {
	lm := engine.NewNoCacheLM(m)
	out := make([]float64, len(positions))
	var err error
	for i, p := range positions {
		if p >= len(tokens) {
			return nil, fmt.Errorf("position %d needs %d tokens, not %d", p, p+1, len(tokens))
		}
		out[i] = Milliseconds(BestTime(repeats, func() {
			if _, e := lm.NextLogits(tokens[:p+1], 1); e != nil {
				err = e
			}
		}))
	}
	return out, err
}

// DecodeStepFLOPs returns the counted floating-point operations of one decode
// step at position pos, all parts together (c.StepCost summed).
func DecodeStepFLOPs(c engine.Config, pos int) int64 {
	var total int64
	for _, part := range c.StepCost(pos) {
		total += part.FLOPs
	}
	return total
}

// WithContext returns a copy of m whose context is seqLen tokens, sharing
// m's weights: none of them depends on the context length (positions
// enter only through the rotary embedding, computed as needed). A step at
// a position beyond the context m was trained on costs what it would in a
// model trained that long, though what the model predicts there means
// little.
func WithContext(m *engine.Model, seqLen int) *engine.Model {
	long := *m
	long.Config.SeqLen = seqLen
	return &long
}

// DecodeEach runs tokens through st one at a time with State.Forward, at
// positions 0, 1, …: the decode path, one matrix-vector product per
// weight matrix and token.
func DecodeEach(st *engine.State, tokens []int) error {
	for pos, id := range tokens {
		if _, err := st.Forward(id, pos); err != nil {
			return err
		}
	}
	return nil
}

// CacheAttentionFLOPs returns the counted FLOPs, all layers together, that
// a decode step at position pos spends attending over the cache: every
// query head scores the pos+1 visible positions and sums their values (two
// dot products of head_size each, plus about 5 FLOPs of softmax per score).
// It is the only part of a step that grows with the position.
func CacheAttentionFLOPs(c engine.Config, pos int) int64 {
	return int64(pos+1) * int64(c.NHeads) * int64(4*c.HeadSize()+5) * int64(c.NLayers)
}
