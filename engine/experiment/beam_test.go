package experiment

import (
	"github.com/tokenbytoken/course/engine/decoding"
	"math"
	"testing"
)

func TestWordLMGreedyAndBeamDisagree(t *testing.T) {
	lm := WordLM{
		Words: []string{"The", " nice", " dog", " woman", " has", " guy", " runs", " car"},
		Next: map[string]map[string]float64{
			"The":   {" nice": 0.5, " dog": 0.4, " car": 0.1},
			" nice": {" woman": 0.4, " guy": 0.6},
			" dog":  {" has": 0.9, " runs": 0.1},
		},
	}
	rows, err := lm.NextLogits([]int{0, 2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(float64(rows[0][1])-math.Log(0.5)) > 1e-6 || !math.IsInf(float64(rows[0][3]), -1) || math.Abs(float64(rows[1][4])-math.Log(0.9)) > 1e-6 {
		t.Errorf("rows %v: want log 0.5 for nice after The, −Inf for a missing word, log 0.9 for has after dog", rows)
	}
	// Greedy takes nice (0.5) then guy: 0.5 × 0.6 = 0.30; a beam of two
	// finds dog has: 0.4 × 0.9 = 0.36.
	for width, want := range map[int]string{1: " nice guy", 2: " dog has"} {
		res, err := beamResult(lm, []int{0}, decoding.Options{MaxNewTokens: 2, Decoder: decoding.Beam{Width: width}})
		if err != nil {
			t.Fatal(err)
		}
		if got := lm.Text(res.Best.Tokens); got != want {
			t.Errorf("width %d: %q, want %q", width, got, want)
		}
	}
}
