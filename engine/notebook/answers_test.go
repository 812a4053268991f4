package notebook

import (
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine/experiment"
)

// TestAnswersChart: a bar per answer, labelled as the answer, its height
// the log-probability per token rounded for the tooltip.
func TestAnswersChart(t *testing.T) {
	option := AnswersChart("per token", []experiment.Answer{
		{Label: "width 2", Tokens: []int{1, 2, 3}, LogProb: -1},
		{Label: "sample, seed 1", Tokens: []int{1}, LogProb: -0.5},
	}).RenderSnippet().Option
	for _, want := range []string{`"data":["width 2","sample, seed 1"]`, `{"value":-0.333}`, `{"value":-0.5}`, `"name":"log p per token"`} {
		if !strings.Contains(option, want) {
			t.Errorf("the chart's option lacks %s:\n%s", want, option)
		}
	}
}
