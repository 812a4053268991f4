package notebook

import (
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/experiment"
	"html"
	"strings"
)

// RankLabels returns a label for each rank 1 … n ("1", "2", …): the x axis
// of a chart of sorted probabilities.
func RankLabels(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprint(i + 1)
	}
	return out
}

// TopLabels returns a chart label (see TokenLabel) for every token of top,
// its text given by piece (a tokenizer's Piece method).
func TopLabels(top []decoding.TokenLogProb, piece func(id int) string) []string {
	labels := make([]string, len(top))
	for i, t := range top {
		labels[i] = TokenLabel(piece(t.ID))
	}
	return labels
}

// SamplerView returns the HTML of a knob view for the sampler: the n most
// likely tokens of logits (named by label) as bars, the model's
// probability beside the probability the sampler with opts draws them with
// after all its stages, and a line saying how many tokens each stage
// leaves. It is meant for Interact: build opts from the knobs' values.
func SamplerView(title string, logits []float32, label func(id int) string, opts decoding.Options, n int) (string, error) {
	stages, counts, err := experiment.SamplerStages(logits, opts)
	if err != nil {
		return "", err
	}
	top := decoding.TopLogProbs(logits, n)
	labels := make([]string, len(top))
	model, drawn := make([]float64, len(top)), make([]float64, len(top))
	last := stages[len(stages)-1].Probs
	for i, t := range top {
		labels[i] = TokenLabel(label(t.ID))
		model[i], drawn[i] = stages[0].Probs[t.ID], last[t.ID]
	}
	chart := GroupedBars(title, "probability", labels,
		Series{Name: "model", Values: model}, Series{Name: "sampled from", Values: drawn})
	return HTML(chart) + StageLine(counts), nil
}

// StageLine describes counts as one line of HTML: "model: 2048 tokens →
// top-k: 40 → top-p: 12", and how many of the tokens are left to draw from.
func StageLine(counts []experiment.StageCount) string {
	var parts []string
	for i, c := range counts {
		unit := ""
		if i == 0 {
			unit = " tokens"
		}
		parts = append(parts, fmt.Sprintf("%s: %d%s", html.EscapeString(c.Stage), c.Left, unit))
	}
	left := 0
	if len(counts) > 0 {
		left = counts[len(counts)-1].Left
	}
	return fmt.Sprintf(`<p style="font-family: monospace">%s<br>the token is drawn from %d %s</p>`,
		strings.Join(parts, " → "), left, plural(left, "token", "tokens"))
}

// plural is one or many, as n asks.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
