package sampling

import (
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/exercises/internal/check"
	"math"
	"slices"
	"testing"
)

// filterCase is one call of a filter and the distribution it must return.
type filterCase struct {
	probs []float32
	arg   float64
	want  []float32
}

// checkFilter calls f on each case, checks the result within 1e-6, and that
// the input was not modified. It shows the first three failures.
func checkFilter(t *testing.T, name string, f func([]float32, float64) []float32, cases []filterCase) {
	t.Helper()
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for _, c := range cases {
		in := slices.Clone(c.probs)
		got := f(in, c.arg)
		call := fmt.Sprintf("%s(%s, %v)", name, check.Vec(c.probs), c.arg)
		if !slices.Equal(in, c.probs) {
			fails.Errorf("%s changed its input to %s; a filter must return a new slice", call, check.Vec(in))
		}
		if !close32(got, c.want, 1e-6) {
			fails.Errorf("%s", probsMismatch(call, got, c.want, 1e-6, ""))
		}
	}
}

func topK(p []float32, k float64) []float32 { return TopK(p, int(k)) }

// TestTask2_KeepsK: TopK keeps the k most likely tokens, wherever they are,
// and renormalises them.
//
//grade:task 2 points 1
func TestTask2_KeepsK(t *testing.T) {
	defer check.Recover(t)
	p := []float32{0.1, 0.4, 0.2, 0.3}
	checkFilter(t, "TopK", topK, []filterCase{
		{p, 1, []float32{0, 1, 0, 0}},
		{p, 2, []float32{0, 0.4 / 0.7, 0, 0.3 / 0.7}},
		{p, 3, []float32{0, 0.4 / 0.9, 0.2 / 0.9, 0.3 / 0.9}},
		{[]float32{0.05, 0.05, 0.6, 0.1, 0.2}, 2, []float32{0, 0, 0.75, 0, 0.25}},
	})
}

// TestTask2_TiesAndLimits: ties are broken by the lower id, so exactly k
// tokens are kept; k ≤ 0 or k ≥ len(probs) keeps every token.
//
//grade:task 2 points 1
func TestTask2_TiesAndLimits(t *testing.T) {
	defer check.Recover(t)
	p := []float32{0.1, 0.4, 0.2, 0.3}
	checkFilter(t, "TopK", topK, []filterCase{
		{[]float32{0.1, 0.3, 0.3, 0.3}, 2, []float32{0, 0.5, 0.5, 0}},
		{[]float32{0.25, 0.25, 0.25, 0.25}, 3, []float32{1. / 3, 1. / 3, 1. / 3, 0}},
		{p, 0, p},
		{p, -1, p},
		{p, 4, p},
		{p, 10, p},
	})
}

// TestTask2_MatchesEngine: on 16 tokens, TopK keeps the same tokens as
// decoding.ApplyTopK (which works on logits; without ties the two agree).
//
//grade:task 2 points 1
func TestTask2_MatchesEngine(t *testing.T) {
	defer check.Recover(t)
	logits := randomLogits(16, 3)
	probs := f32(decoding.Softmax(logits))
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for _, k := range []int{1, 2, 5, 8, 15} {
		z := slices.Clone(logits)
		decoding.ApplyTopK(z, k)
		var want []int
		for i, v := range z {
			if !math.IsInf(float64(v), -1) { // ApplyTopK bans the rest with -Inf
				want = append(want, i)
			}
		}
		got := TopK(probs, k)
		if !close32(got, restrict(probs, want), 1e-6) {
			fails.Errorf("%s", probsMismatch(fmt.Sprintf("TopK(%s, %d)", check.Vec(probs), k), got, restrict(probs, want), 1e-6, ", as decoding.ApplyTopK"))
		}
	}
}

// TestTask3_Nucleus: TopP keeps the most likely tokens until their
// probabilities add up to more than p — one token when the model is sure,
// many when it is not.
//
//grade:task 3 points 2
func TestTask3_Nucleus(t *testing.T) {
	defer check.Recover(t)
	p := []float32{0.5, 0.3, 0.2}
	mixed := []float32{0.1, 0.2, 0.05, 0.4, 0.25}
	checkFilter(t, "TopP", TopP, []filterCase{
		{p, 0.7, []float32{0.625, 0.375, 0}},
		{p, 0.4, []float32{1, 0, 0}},
		{p, 0.9, p},
		{mixed, 0.6, []float32{0, 0, 0, 0.4 / 0.65, 0.25 / 0.65}},
		{mixed, 0.8, []float32{0, 0.2 / 0.85, 0, 0.4 / 0.85, 0.25 / 0.85}},
		{[]float32{0.3, 0.4, 0.3}, 0.5, []float32{0.3 / 0.7, 0.4 / 0.7, 0}},         // tie: the lower id first
		{[]float32{0.96, 0.02, 0.01, 0.01}, 0.9, []float32{1, 0, 0, 0}},             // sure: one token
		{[]float32{0.25, 0.25, 0.25, 0.25}, 0.9, []float32{0.25, 0.25, 0.25, 0.25}}, // unsure: all four
		{[]float32{0.6, 0, 0.4, 0}, 0.95, []float32{0.6, 0, 0.4, 0}},
	})
}

// TestTask3_PEqualsOne: p = 1 (and p = 0, "unset") keeps every token of
// positive probability, even when float32 rounding makes the running sum pass
// 1 before the last of them; a sum that never passes p keeps every token of
// positive probability but never one of probability 0.
//
//grade:task 3 points 1
func TestTask3_PEqualsOne(t *testing.T) {
	defer check.Recover(t)
	// Probabilities computed in float32 rarely add up to exactly 1. Here the
	// two largest already add up to 1.00000012 > 1 (in float32 and exactly),
	// yet the third token has positive probability and p = 1 must keep it.
	over := []float32{0.5, 0.50000012, 1e-7, 0}
	if float32(over[0]+over[1]) <= 1 {
		t.Fatalf("test fixture: %v + %v should round past 1 in float32", over[0], over[1])
	}
	all := restrict(over, []int{0, 1, 2})
	// 0.5 + 0.49999994 = 0.99999994 never passes p = 0.99999999.
	short := []float32{0.5, 0.49999994, 0}
	checkFilter(t, "TopP", TopP, []filterCase{
		{over, 1, all},
		{over, 0, all},
		{short, 0.99999999, restrict(short, []int{0, 1})},
	})
}

// TestTask3_ExactTie: when the running sum lands exactly on p, the engine's
// rule (more than p) keeps one token more than Hugging Face's (at least p).
// Both answers are accepted here.
//
//grade:task 3 points 1
func TestTask3_ExactTie(t *testing.T) {
	defer check.Recover(t)
	probs := []float32{0.5, 0.25, 0.125, 0.125} // 0.5 + 0.25 = 0.75 exactly
	got := TopP(probs, 0.75)
	atLeast := restrict(probs, []int{0, 1})     // Hugging Face, the nucleus paper
	moreThan := restrict(probs, []int{0, 1, 2}) // the engine, llama2.c
	if !close32(got, atLeast, 1e-6) && !close32(got, moreThan, 1e-6) {
		t.Errorf("TopP(%s, 0.75) = %s (kept %s); want %s (kept [0 1], sum at least p) or %s (kept [0 1 2], sum more than p)",
			check.Vec(probs), check.Vec(got), check.Vec(keptIDs(got)), check.Vec(atLeast), check.Vec(moreThan))
	}
}

// TestTask3_MatchesEngine: on 16 tokens, TopP keeps the same tokens as
// decoding.ApplyTopP for several p (none of them near a running sum, where the
// rules could differ).
//
//grade:task 3 points 1
func TestTask3_MatchesEngine(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for _, seed := range []uint64{5, 6} {
		probs := f32(decoding.Softmax(randomLogits(16, seed)))
		for _, p := range []float64{0.2, 0.5, 0.8, 0.9, 0.95} {
			if nearCumulative(probs, p) {
				continue
			}
			engine := slices.Clone(probs)
			decoding.ApplyTopP(engine, p)
			want := restrict(probs, keptIDs(engine))
			got := TopP(probs, p)
			if !close32(got, want, 1e-6) {
				fails.Errorf("%s", probsMismatch(fmt.Sprintf("TopP(%s, %v)", check.Vec(probs), p), got, want, 1e-6, ", as decoding.ApplyTopP"))
			}
		}
	}
}

// TestTask4_Threshold: MinP keeps the tokens of probability at least
// minP × the largest; one exactly on the bar is kept.
//
//grade:task 4 points 2
func TestTask4_Threshold(t *testing.T) {
	defer check.Recover(t)
	halves := []float32{0.5, 0.25, 0.125, 0.125}
	checkFilter(t, "MinP", MinP, []filterCase{
		{[]float32{0.1, 0.6, 0.3}, 0.4, []float32{0, 0.6 / 0.9, 0.3 / 0.9}}, // bar 0.24
		{halves, 0.5, []float32{0.5 / 0.75, 0.25 / 0.75, 0, 0}},             // bar 0.25: 0.25 stays
		{halves, 0.25, halves}, // bar 0.125: all stay
		{halves, 0, halves},
		{[]float32{0.4, 0.4, 0.2}, 1, []float32{0.5, 0.5, 0}},
		{[]float32{0.9, 0.05, 0.05}, 0.1, []float32{1, 0, 0}},                   // sure: one token
		{[]float32{0.3, 0.25, 0.25, 0.2}, 0.1, []float32{0.3, 0.25, 0.25, 0.2}}, // unsure: all four
		{[]float32{0.6, 0, 0.4}, 0.05, []float32{0.6, 0, 0.4}},
	})
}

// TestTask4_MatchesEngine: on 16 tokens, MinP keeps the same tokens as
// decoding.ApplyMinP for several values of minP.
//
//grade:task 4 points 1
func TestTask4_MatchesEngine(t *testing.T) {
	defer check.Recover(t)
	probs := f32(decoding.Softmax(randomLogits(16, 7)))
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for _, minP := range []float64{0.01, 0.05, 0.1, 0.3, 0.7} {
		engine := slices.Clone(probs)
		decoding.ApplyMinP(engine, minP)
		want := restrict(probs, keptIDs(engine))
		got := MinP(probs, minP)
		if !close32(got, want, 1e-6) {
			fails.Errorf("%s", probsMismatch(fmt.Sprintf("MinP(%s, %v)", check.Vec(probs), minP), got, want, 1e-6, ", as decoding.ApplyMinP"))
		}
	}
}
