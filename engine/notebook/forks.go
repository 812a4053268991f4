package notebook

import (
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/experiment"
	"html"
	"slices"
	"strings"
)

// StepsText joins the text of steps.
func StepsText(steps []decoding.Step) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString(s.Text)
	}
	return b.String()
}

// ForkHTML shows a fork as text: the shared start, then the trunk's and the
// branch's continuations one under the other, each from the point where
// they part in colour, with the probabilities of the two tokens there.
// text(prev, id) is a token's text after token prev (Tokenizer.Decode);
// labels name the two runs.
func ForkHTML(f experiment.Fork, text func(prev, id int) string, trunkLabel, branchLabel string) string {
	decode := func(ids []int, from, to int) string {
		var b strings.Builder
		for i := from; i < to; i++ {
			prev := 0
			if all := slices.Concat(f.Prompt, ids[:i]); len(all) > 0 {
				prev = all[len(all)-1]
			}
			b.WriteString(text(prev, ids[i]))
		}
		return html.EscapeString(b.String())
	}
	var b strings.Builder
	b.WriteString(`<div style="font-family: var(--jp-code-font-family, monospace); white-space: pre-wrap; line-height: 1.6">`)
	row := func(label string, ids []int, color string) {
		fmt.Fprintf(&b, `<div style="margin: 0.4em 0"><b>%s</b><br>%s<span style="background: #eee">%s</span><span style="background: %s">%s</span></div>`,
			html.EscapeString(label), decode(ids, 0, min(f.At, f.Parted)), decode(ids, min(f.At, f.Parted), f.Parted), color, decode(ids, f.Parted, len(ids)))
	}
	row(trunkLabel, f.Trunk, "#dbe9ff")
	row(branchLabel, f.Branch, "#ffe3c2")
	b.WriteString(`</div><p style="font-family: monospace">`)
	switch {
	case f.Step >= len(f.Trunk):
		fmt.Fprintf(&b, "The trunk has %d tokens, none after step %d: there is nothing left to branch, and the two texts are one.", len(f.Trunk), f.Step)
	case f.Parted >= max(len(f.Trunk), len(f.Branch)):
		fmt.Fprintf(&b, "The branch starts drawing at step %d and draws the very same %d tokens: the two texts are one.", f.At, len(f.Trunk)-f.At)
	default:
		fmt.Fprintf(&b, "The branch starts drawing at step %d (grey: tokens it drew and the trunk also has) and parts from the trunk at step %d, "+
			"where the trunk has a token of probability %.3f and the branch one of probability %.3f; after that, %d and %d tokens of their own.",
			f.At, f.Parted, f.TrunkProb, f.BranchProb, len(f.Trunk)-f.Parted, len(f.Branch)-f.Parted)
	}
	b.WriteString("</p>")
	return b.String()
}
