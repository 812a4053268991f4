package notebook

import (
	"fmt"
	"html"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"
)

// tokenColors are the backgrounds that alternate from token to token.
var tokenColors = [...]string{"#dbe9ff", "#ffe3c2", "#d8f5d0", "#f3d9f7"}

// ShowTokens displays a text as the tokens it is made of, each on its own
// coloured background, so the boundaries the model sees become visible.
// Hovering a token shows its position and its exact text. Like Show, it
// returns once GoNB has received the output; outside a GoNB notebook it does
// nothing.
func ShowTokens(pieces []string) {
	if !gonbui.IsNotebook {
		return
	}
	gonbui.DisplayHTML(TokensHTML(pieces))
	gonbui.Sync() // see Show
}

// TokensHTML returns the HTML that ShowTokens displays: one <span> per
// piece, in a block that keeps spaces and line breaks. A newline inside a
// token is drawn as "⏎" before the line break; bytes that are not valid
// UTF-8 on their own (part of a character split across tokens) show as
// "�".
func TokensHTML(pieces []string) string {
	var b strings.Builder
	b.WriteString(`<div class="tokenbytoken-tokens" style="font-family: var(--jp-code-font-family, monospace); white-space: pre-wrap; line-height: 1.9;">`)
	for i, p := range pieces {
		text := strings.ToValidUTF8(p, "\uFFFD")
		shown := html.EscapeString(text)
		shown = strings.ReplaceAll(shown, "\n", "⏎\n")
		fmt.Fprintf(&b, `<span title="token %d: %s" style="background: %s; color: #111; border-radius: 3px; padding: 1px 0;">%s</span>`,
			i, html.EscapeString(fmt.Sprintf("%q", p)), tokenColors[i%len(tokenColors)], shown)
	}
	b.WriteString("</div>")
	return b.String()
}
