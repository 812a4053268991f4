package notebook

import (
	"fmt"
	"math"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/tokenbytoken/course/engine/experiment"
)

// Speculative decoding (notebooks 10, 11 and 14): how many tokens a round
// adds, tokens per target pass against γ, and distributions over one
// vocabulary compared on their most likely tokens.

// SpeculativeRunHTML is the view of one run for a γ knob: a bar chart of how
// many tokens its rounds added, measured and as the acceptance model
// predicts, then a line of text with α and the tokens per target pass,
// measured and by experiment.ExpectedTokensPerPass.
func SpeculativeRunHTML(r experiment.SpeculativeRun) string {
	measured, predicted := r.YieldShares()
	labels := make([]string, r.Gamma+1)
	for i := range labels {
		labels[i] = fmt.Sprint(i + 1)
	}
	alpha := r.Stats.AcceptanceRate()
	chart := GroupedBars(fmt.Sprintf("γ = %d: tokens added per round (%d rounds)", r.Gamma, len(r.Yields)), "share of rounds", labels,
		Series{Name: "measured", Values: roundTo(measured, 3)},
		Series{Name: fmt.Sprintf("predicted from α = %.2f", alpha), Values: roundTo(predicted, 3)})
	return HTML(chart) + fmt.Sprintf(`<p style="font-family: monospace">γ = %d: α = %.2f; %d tokens from %d target passes = %.2f tokens per pass `+
		`(formula (1 − α^(γ+1)) / (1 − α): %.2f); %d draft passes, %.2f per token; %d of %d proposals used</p>`,
		r.Gamma, alpha, len(r.Stats.Tokens), r.Stats.TargetPasses, r.Stats.TokensPerTargetPass(), experiment.ExpectedTokensPerPass(alpha, r.Gamma),
		r.Stats.DraftPasses, float64(r.Stats.DraftPasses)/float64(max(1, len(r.Stats.Tokens))), r.Stats.Accepted, r.Stats.Drafted)
}

// SpeculativeGammaChart draws tokens per target pass against γ for runs
// with γ = 1, 2, …: measured, by the formula fed each run's measured α, and
// α itself.
func SpeculativeGammaChart(runs []experiment.SpeculativeRun) *charts.Line {
	var x []string
	var measured, formula, alphas []float64
	for _, r := range runs {
		alpha := r.Stats.AcceptanceRate()
		x = append(x, fmt.Sprint(r.Gamma))
		measured = append(measured, r.Stats.TokensPerTargetPass())
		formula = append(formula, experiment.ExpectedTokensPerPass(alpha, r.Gamma))
		alphas = append(alphas, alpha)
	}
	return LinesXY("Tokens per target pass", "γ (tokens drafted per round)", "tokens", x,
		Series{Name: "measured", Values: roundTo(measured, 3)},
		Series{Name: "(1 − α^(γ+1)) / (1 − α)", Values: roundTo(formula, 3)},
		Series{Name: "α (acceptance rate)", Values: roundTo(alphas, 3)})
}

// TopTokenBars compares distributions over one vocabulary with grouped
// bars: one group for each of the k tokens that rank (a distribution over
// the same vocabulary) gives the most probability, labelled by label(id),
// and a last group "other" with the rest of each distribution. Every series
// needs one value per token.
func TopTokenBars(title string, rank []float64, k int, label func(id int) string, series ...Series) *charts.Bar {
	first := rank
	ids := experiment.TopIDs(rank, k)
	labels := make([]string, 0, len(ids)+1)
	for _, id := range ids {
		labels = append(labels, label(id))
	}
	labels = append(labels, "other")
	bars := make([]Series, len(series))
	for i, s := range series {
		if len(s.Values) != len(first) {
			panic(fmt.Sprintf("notebook.TopTokenBars: series %q has %d values for %d tokens", s.Name, len(s.Values), len(first)))
		}
		rest := 0.0
		for _, v := range s.Values {
			rest += v
		}
		values := make([]float64, 0, len(labels))
		for _, id := range ids {
			values = append(values, s.Values[id])
			rest -= s.Values[id]
		}
		bars[i] = Series{Name: s.Name, Values: roundTo(append(values, math.Max(0, rest)), 3)}
	}
	return GroupedBars(title, "probability", labels, bars...)
}
