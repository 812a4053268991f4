package notebook

import (
	"strings"
	"testing"
)

func TestTopBars(t *testing.T) {
	p := []float64{0.1, 0.4, 0.1, 0.3, 0.1}
	bars := HTML(TopBars("top", p, 2, func(id int) string { return []string{"a", "b", "c", "d", "e"}[id] }))
	if !strings.Contains(bars, `"b","d"`) {
		t.Error("TopBars does not label the two most likely tokens b, d in order")
	}
}
