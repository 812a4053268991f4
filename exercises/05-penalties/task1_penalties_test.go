package penalties

import (
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/exercises/internal/check"
	"slices"
	"testing"
)

// penaltyCase is one call of a penalty on a copy of logits and the logits it
// must leave.
type penaltyCase struct {
	logits  []float32
	history []int
	want    []float32
	why     string
}

// checkPenalty runs each case through f (on a copy) and compares.
func checkPenalty(t *testing.T, name string, f func(z []float32, history []int), cases []penaltyCase) {
	t.Helper()
	for _, c := range cases {
		z := slices.Clone(c.logits)
		f(z, slices.Clone(c.history))
		if !sameLogits(z, c.want) {
			why := ""
			if c.why != "" {
				why = " (" + c.why + ")"
			}
			t.Error(logitsMismatch(fmt.Sprintf("%s on logits %s, history %s", name, check.Vec(c.logits), ending(c.history)), z, c.want, why))
		}
	}
}

var (
	handLogits  = []float32{2.0, 1.0, -0.5, 0.5, 3.0, -1.0}
	handHistory = []int{0, 4, 0, 2, 0} // token 0 three times, 2 and 4 once
)

// TestTask1_HandValues: positive logits of seen tokens are divided by the
// penalty, negative ones multiplied, zero stays zero, unseen tokens are
// untouched.
//
//grade:task 1 points 2
func TestTask1_HandValues(t *testing.T) {
	defer check.Recover(t)
	rep := func(penalty float64) func([]float32, []int) {
		return func(z []float32, h []int) { ApplyRepetitionPenalty(z, h, penalty) }
	}
	checkPenalty(t, "ApplyRepetitionPenalty(…, 2)", rep(2), []penaltyCase{
		{[]float32{2, -1, 0.5}, []int{0, 1, 1}, []float32{1, -2, 0.5}, "2/2 = 1; -1×2 = -2; token 2 unseen"},
		{[]float32{0, 1, -3}, []int{0, 2}, []float32{0, 1, -6}, "a logit of 0 stays 0"},
	})
	checkPenalty(t, "ApplyRepetitionPenalty(…, 1.5)", rep(1.5), []penaltyCase{
		{handLogits, handHistory, []float32{2.0 / 1.5, 1, -0.75, 0.5, 2, -1}, "tokens 0, 2 and 4 seen"},
	})
	checkPenalty(t, "ApplyRepetitionPenalty(…, 0.5)", rep(0.5), []penaltyCase{
		{[]float32{2, -1, 3}, []int{0, 1}, []float32{4, -0.5, 3}, "below 1 the penalty rewards repetition"},
	})
	checkPenalty(t, "ApplyRepetitionPenalty(…, 1)", rep(1), []penaltyCase{
		{[]float32{2, -1, 3}, []int{0, 1}, []float32{2, -1, 3}, "penalty 1 changes nothing"},
	})
}

// TestTask1_OncePerToken: a token that occurs several times is penalised
// once, not once per occurrence.
//
//grade:task 1 points 1
func TestTask1_OncePerToken(t *testing.T) {
	defer check.Recover(t)
	checkPenalty(t, "ApplyRepetitionPenalty(…, 2)", func(z []float32, h []int) { ApplyRepetitionPenalty(z, h, 2) }, []penaltyCase{
		{[]float32{3, 3, -3}, []int{0, 0, 0, 2, 2}, []float32{1.5, 3, -6}, "token 0 three times and token 2 twice: each is penalised once"},
		{[]float32{4, 1}, []int{0, 0, 0, 0, 0, 0, 0, 0}, []float32{2, 1}, "eight times, still once"},
	})
}

// TestTask1_MatchesEngine: on 50 tokens and a history with many repeats,
// the same logits as decoding.ApplyRepetitionPenalty.
//
//grade:task 1 points 1
func TestTask1_MatchesEngine(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 2)
	defer fails.Close()
	for i, penalty := range []float64{1.3, 2, 0.8} {
		logits, history := randomCase(50, 30, 20, uint64(10+i))
		want := slices.Clone(logits)
		decoding.ApplyRepetitionPenalty(want, history, penalty)
		got := slices.Clone(logits)
		ApplyRepetitionPenalty(got, history, penalty)
		if !sameLogits(got, want) {
			fails.Errorf("ApplyRepetitionPenalty on 50 logits, history %s, penalty %v differs from decoding.ApplyRepetitionPenalty:\n%s",
				check.Vec(history), penalty, differences(logits, got, want, history))
		}
	}
}

// TestTask2_HandValues: presence is subtracted once from every seen token,
// frequency once per occurrence, both together add up; unseen tokens are
// untouched.
//
//grade:task 2 points 2
func TestTask2_HandValues(t *testing.T) {
	defer check.Recover(t)
	pf := func(presence, frequency float64) func([]float32, []int) {
		return func(z []float32, h []int) { ApplyPresenceFrequencyPenalty(z, h, presence, frequency) }
	}
	checkPenalty(t, "ApplyPresenceFrequencyPenalty(…, 0.5, 0)", pf(0.5, 0), []penaltyCase{
		{handLogits, handHistory, []float32{1.5, 1, -1, 0.5, 2.5, -1}, "0.5 off tokens 0, 2 and 4"},
	})
	checkPenalty(t, "ApplyPresenceFrequencyPenalty(…, 0, 0.5)", pf(0, 0.5), []penaltyCase{
		{handLogits, handHistory, []float32{0.5, 1, -1, 0.5, 2.5, -1}, "token 0 seen 3 times loses 1.5"},
	})
	checkPenalty(t, "ApplyPresenceFrequencyPenalty(…, 0.5, 0.2)", pf(0.5, 0.2), []penaltyCase{
		{handLogits, handHistory, []float32{0.9, 1, -1.2, 0.5, 2.3, -1}, "token 0: 2 - 0.5 - 3×0.2 = 0.9"},
	})
	checkPenalty(t, "ApplyPresenceFrequencyPenalty(…, -1, 0)", pf(-1, 0), []penaltyCase{
		{[]float32{0, 0, 0}, []int{1}, []float32{0, 1, 0}, "a negative presence penalty rewards seen tokens"},
	})
}

// TestTask2_CountsOccurrences: a token seen three times gets three times the
// frequency penalty; a token not in the history keeps its logit exactly.
//
//grade:task 2 points 1
func TestTask2_CountsOccurrences(t *testing.T) {
	defer check.Recover(t)
	checkPenalty(t, "ApplyPresenceFrequencyPenalty(…, 0, 0.25)", func(z []float32, h []int) { ApplyPresenceFrequencyPenalty(z, h, 0, 0.25) }, []penaltyCase{
		{[]float32{1, 1, 1}, []int{2, 0, 2, 2}, []float32{0.75, 1, 0.25}, "token 2 three times: 3 × 0.25; token 1 unseen"},
	})
	z := []float32{0.1, 0.2, 0.3, 0.4}
	ApplyPresenceFrequencyPenalty(z, []int{3, 3, 3, 0}, 0.5, 1)
	if z[1] != 0.2 || z[2] != 0.3 {
		t.Errorf("ApplyPresenceFrequencyPenalty([0.1 0.2 0.3 0.4], [3 3 3 0], 0.5, 1) changed tokens 1 and 2, which are not in the history: got %s", check.Vec(z))
	}
	if want := float32(0.4 - 0.5 - 3); !sameLogits(z[3:], []float32{want}) {
		t.Errorf("ApplyPresenceFrequencyPenalty([0.1 0.2 0.3 0.4], [3 3 3 0], 0.5, 1): token 3 (seen 3 times) = %.4g; want 0.4 - 0.5 - 3×1 = %.4g", z[3], want)
	}
}

// TestTask2_MatchesEngine: on 50 tokens and a history with many repeats,
// the same logits as decoding.ApplyPresenceFrequencyPenalty.
//
//grade:task 2 points 1
func TestTask2_MatchesEngine(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 2)
	defer fails.Close()
	for i, pf := range [][2]float64{{0.5, 0}, {0, 0.3}, {1, 0.5}, {-0.5, 0.2}} {
		logits, history := randomCase(50, 30, 20, uint64(20+i))
		want := slices.Clone(logits)
		decoding.ApplyPresenceFrequencyPenalty(want, history, pf[0], pf[1])
		got := slices.Clone(logits)
		ApplyPresenceFrequencyPenalty(got, history, pf[0], pf[1])
		if !sameLogits(got, want) {
			fails.Errorf("ApplyPresenceFrequencyPenalty on 50 logits, history %s, presence %v, frequency %v differs from decoding.ApplyPresenceFrequencyPenalty:\n%s",
				check.Vec(history), pf[0], pf[1], differences(logits, got, want, history))
		}
	}
}

// onlyBanned returns logits with the given ids set to -Inf.
func onlyBanned(logits []float32, ids ...int) []float32 {
	out := slices.Clone(logits)
	for _, id := range ids {
		out[id] = inf
	}
	return out
}

func ngram(n int) (string, func([]float32, []int)) {
	return fmt.Sprintf("BanRepeatedNGrams(…, %d)", n), func(z []float32, h []int) { BanRepeatedNGrams(z, h, n) }
}

// TestTask3_BansContinuations: the tokens that followed the text's last
// n-1 tokens before are set to -Inf, and only those.
//
//grade:task 3 points 2
func TestTask3_BansContinuations(t *testing.T) {
	defer check.Recover(t)
	ten := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	name, f := ngram(2)
	checkPenalty(t, name, f, []penaltyCase{
		{handLogits, handHistory, onlyBanned(handLogits, 2, 4), "the text ends with 0, which was followed by 4 and by 2"},
		{ten[:5], []int{1, 2, 3, 1, 2}, onlyBanned(ten[:5], 3), "the text ends with 2, followed by 3 before"},
	})
	name, f = ngram(3)
	checkPenalty(t, name, f, []penaltyCase{
		{ten[:5], []int{1, 2, 3, 1, 2}, onlyBanned(ten[:5], 3), "the text ends with 1 2, followed by 3 before"},
		{ten, []int{5, 6, 7, 8, 5, 6, 9, 5, 6}, onlyBanned(ten, 7, 9), "5 6 was followed by 7 and by 9"},
		{ten, []int{1, 2, 3, 4, 2, 1, 2}, onlyBanned(ten, 3), "1 2 was followed by 3; 2 1 and 4 2 do not end the text"},
	})
}

// TestTask3_EdgeCases: n = 1 bans every token used; n ≤ 0 and histories
// shorter than n-1 ban nothing; an earlier n-gram that overlaps the end of
// the text still counts.
//
//grade:task 3 points 1
func TestTask3_EdgeCases(t *testing.T) {
	defer check.Recover(t)
	z := []float32{1, 2, 3, 4, 5}
	for _, c := range []struct {
		n       int
		history []int
		want    []float32
		why     string
	}{
		{1, []int{3, 1, 3}, onlyBanned(z, 1, 3), "n = 1: every token already used"},
		{2, []int{4, 4}, onlyBanned(z, 4), "the 2-gram 4 4 overlaps the text's last token"},
		{3, []int{2, 2, 2}, onlyBanned(z, 2), "the earlier 3-gram 2 2 2 overlaps the text's last two tokens, 2 2"},
		{2, []int{1, 2, 3}, z, "the last token, 3, was never followed by anything"},
		{0, []int{1, 1, 1}, z, "n = 0 bans nothing"},
		{-2, []int{1, 1, 1}, z, "n < 0 bans nothing"},
		{4, []int{1, 2}, z, "the history is shorter than n-1 tokens"},
		{3, nil, z, "an empty history bans nothing"},
	} {
		name, f := ngram(c.n)
		checkPenalty(t, name, f, []penaltyCase{{z, c.history, c.want, c.why}})
	}
}

// TestTask3_MatchesEngine: on histories of 40 tokens from a vocabulary of 6
// (so n-grams repeat often), the same bans as decoding.BanRepeatedNGrams for n
// from 1 to 5.
//
//grade:task 3 points 1
func TestTask3_MatchesEngine(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for seed := uint64(30); seed < 36; seed++ {
		logits, history := randomCase(6, 40, 6, seed)
		for n := 1; n <= 5; n++ {
			want := slices.Clone(logits)
			decoding.BanRepeatedNGrams(want, history, n)
			got := slices.Clone(logits)
			BanRepeatedNGrams(got, history, n)
			if !sameLogits(got, want) {
				call := fmt.Sprintf("BanRepeatedNGrams(%s, history of %s, %d)", check.Vec(logits), ending(history), n)
				fails.Errorf("%s", logitsMismatch(call, got, want, ", as decoding.BanRepeatedNGrams"))
			}
		}
	}
}
