package notebook

import (
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/tokenbytoken/course/engine/experiment"
)

// Answers to a chat request (notebook 9): experiment.BeamAnswers' and
// experiment.SampledAnswers' answers side by side.

// AnswersChart draws each answer's log-probability per token.
func AnswersChart(title string, answers []experiment.Answer) *charts.Bar {
	labels := make([]string, len(answers))
	values := make([]float64, len(answers))
	for i, a := range answers {
		labels[i], values[i] = a.Label, a.PerToken()
	}
	return GroupedBars(title, "log p per token", labels, Series{Name: "per token", Values: roundTo(values, 3)})
}
