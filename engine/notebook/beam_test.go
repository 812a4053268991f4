package notebook

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
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
		res, err := BeamSearch(lm, []int{0}, engine.BeamOptions{Width: width, MaxNewTokens: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got := lm.Text(res.Best.Tokens); got != want {
			t.Errorf("width %d: %q, want %q", width, got, want)
		}
	}
}

func TestGeneratedText(t *testing.T) {
	_, tok, err := engine.Default()
	if err != nil {
		t.Fatal(err)
	}
	ids, err := tok.Encode("x := 1", true, false)
	if err != nil {
		t.Fatal(err)
	}
	// The tokens after <s>, then an end-of-text token that shows as nothing.
	gen := slices.Concat(ids[1:], []int{tok.EOS()})
	if got := GeneratedText(tok, ids[0], gen); got != "x := 1" {
		t.Errorf("GeneratedText = %q, want %q", got, "x := 1")
	}
}

func TestBeamHypothesesHTML(t *testing.T) {
	res := &engine.BeamResult{Hypotheses: []engine.BeamHypothesis{
		{Tokens: []int{1, 2, 3}, CumLogProb: -3, Score: -2.5},
		{Tokens: []int{4}, CumLogProb: -1.5, Score: -1.5},
	}}
	res.Best = res.Hypotheses[0]
	h := BeamHypothesesHTML(res, func(ids []int) string { return fmt.Sprint(len(ids), " <tokens>") })
	for _, want := range []string{"The winner: 3 tokens, log p -3.00.", `<tr style="font-weight: bold"><td>3</td><td>-3.00</td><td>-2.50</td>`, "<td>1</td><td>-1.50</td><td>-1.50</td>", "&#34;3 &lt;tokens&gt;&#34;"} {
		if !strings.Contains(h, want) {
			t.Errorf("the table lacks %q:\n%s", want, h)
		}
	}
}
