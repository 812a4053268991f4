package notebook

import (
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/experiment"
	"strings"
	"testing"
)

// TestLookupGuessesHTML: a token with no guess, one guessed right and one
// guessed wrong (the guess shown on hover), with escaped text and bytes
// that are not UTF-8 on their own shown as �.
func TestLookupGuessesHTML(t *testing.T) {
	guesses := []experiment.LookupGuess{
		{Actual: 5, Guess: decoding.NoToken, Top: 7},
		{Actual: 6, Guess: 6, P: 0.1, Top: 7},
		{Actual: 9, Guess: 7, P: 0.3, Top: 7},
	}
	page := LookupGuessesHTML(guesses, func(id int) string { return []string{"a", "b", "c", "d", "e", "<&>", "g", "h", "i\n", "\xff"}[id] })
	for _, s := range []string{"&lt;&amp;&gt;", "\uFFFD", "no match", `guessed &#34;h&#34;`, "#b7e4c0", "#f4b6b6"} {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks %q:\n%s", s, page)
		}
	}
}
