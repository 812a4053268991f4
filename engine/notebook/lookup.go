package notebook

import (
	"fmt"
	"html"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/experiment"
)

// Prompt lookup on a real model (notebook 10): a text coloured by what the
// lookup guessed before each of its tokens.

// ShowLookupGuesses displays LookupGuessesHTML in a GoNB notebook (outside
// one it does nothing), and returns once GoNB has received it.
func ShowLookupGuesses(guesses []experiment.LookupGuess, piece func(id int) string) {
	if !gonbui.IsNotebook {
		return
	}
	gonbui.DisplayHTML(LookupGuessesHTML(guesses, piece))
	gonbui.Sync() // see Show
}

// LookupGuessesHTML shows a text token by token (piece gives a token's
// text), each coloured by the lookup's guess before it: green when it
// guessed the token, red when it guessed another (shown on hover, with the
// target's probability of it), grey when it found no match. Newlines and
// bytes that are not valid UTF-8 on their own show as in TokensHTML.
func LookupGuessesHTML(guesses []experiment.LookupGuess, piece func(id int) string) string {
	var b strings.Builder
	b.WriteString(`<div style="font-family: var(--jp-code-font-family, monospace); line-height: 1.9; white-space: pre-wrap">`)
	for _, g := range guesses {
		color, title := "#dddddd", "no match: no guess"
		switch {
		case g.Right():
			color, title = "#b7e4c0", fmt.Sprintf("guessed (target p = %.2f)", g.P)
		case g.Guess != decoding.NoToken:
			color, title = "#f4b6b6", fmt.Sprintf("guessed %q (target p = %.2f)", piece(g.Guess), g.P)
		}
		shown := strings.ReplaceAll(html.EscapeString(strings.ToValidUTF8(piece(g.Actual), "\uFFFD")), "\n", "⏎\n")
		fmt.Fprintf(&b, `<span title="%s" style="background: %s; color: #111; border-radius: 3px; padding: 1px 0; margin-right: 1px">%s</span>`,
			html.EscapeString(title), color, shown)
	}
	b.WriteString(`</div><p style="font-size: smaller">green: prompt lookup guessed the token; red: it guessed another (hover for which); grey: it found nothing to guess from.</p>`)
	return b.String()
}
