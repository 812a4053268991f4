package engine

import (
	"math"
	"testing"
)

// TestLogProbOfEdges: a token outside the logits, and any token when every
// logit is -Inf, has probability 0, so log-probability -Inf; no panic.
func TestLogProbOfEdges(t *testing.T) {
	inf := float32(math.Inf(-1))
	z := []float32{1, 2, 3}
	for _, id := range []int{-1, 3, 1 << 40, math.MinInt} {
		if got := LogProbOf(z, id); !math.IsInf(got, -1) {
			t.Errorf("LogProbOf(%v, %d) = %v, want -Inf: the token is outside the vocabulary", z, id, got)
		}
	}
	if got := LogProbOf(nil, 0); !math.IsInf(got, -1) {
		t.Errorf("LogProbOf(nil, 0) = %v, want -Inf", got)
	}
	for id := range z {
		if got, want := LogProbOf(z, id), LogSoftmax(z)[id]; math.Abs(got-want) > 1e-12 {
			t.Errorf("LogProbOf(%v, %d) = %v, want LogSoftmax's %v", z, id, got, want)
		}
	}
	banned := []float32{inf, 0, inf}
	if got := LogProbOf(banned, 0); !math.IsInf(got, -1) {
		t.Errorf("LogProbOf(%v, 0) = %v, want -Inf (a banned token)", banned, got)
	}
	if got := LogProbOf(banned, 1); got != 0 {
		t.Errorf("LogProbOf(%v, 1) = %v, want 0 (the only token left)", banned, got)
	}
	all := []float32{inf, inf}
	if got := LogProbOf(all, 1); !math.IsInf(got, -1) {
		t.Errorf("LogProbOf(%v, 1) = %v, want -Inf: every token is banned", all, got)
	}
	if got := LogProbOf([]float32{0, float32(math.Inf(1))}, 0); !math.IsNaN(got) {
		t.Errorf("LogProbOf([0 +Inf], 0) = %v, want NaN", got)
	}
	top := TopLogProbs([]float32{inf, inf, inf}, 2)
	if len(top) != 2 || top[0].ID != 0 || top[1].ID != 1 || !math.IsInf(top[0].LogProb, -1) || !math.IsInf(top[1].LogProb, -1) {
		t.Errorf("TopLogProbs of three -Inf logits, 2 = %+v, want ids 0 and 1 with -Inf", top)
	}
}
