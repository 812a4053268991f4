package notebook

import (
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"slices"
	"strings"
	"testing"
)

func TestGeneratedText(t *testing.T) {
	_, tok, err := models.Default()
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
	res := &decoding.BeamResult{Hypotheses: []decoding.BeamHypothesis{
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
