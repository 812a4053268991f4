package notebook

import (
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/tokenbytoken/course/engine/experiment"
)

// Penalties (notebook 5): the most likely tokens after the penalties.

// TopBars draws the k most likely tokens of p as probability bars,
// labelling token id with label(id) (shown as TokenLabel shows it).
func TopBars(title string, p []float64, k int, label func(id int) string) *charts.Bar {
	var labels []string
	var probs []float64
	for _, id := range experiment.TopTokens(p, k) {
		labels = append(labels, TokenLabel(label(id)))
		probs = append(probs, p[id])
	}
	return ProbabilityBars(title, labels, probs)
}
