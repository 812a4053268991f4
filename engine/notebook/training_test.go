package notebook

import (
	"math"
	"testing"

	"github.com/tokenbytoken/course/engine/train"
)

func TestLossChartLeavesGaps(t *testing.T) {
	chart, onStep := LossChart("loss")
	onStep(train.Progress{Step: 1, Loss: 3})
	onStep(train.Progress{Step: 2, Loss: 2.5, ValLoss: 2.7, Evaluated: true})
	if chart.Len() != 2 {
		t.Fatalf("%d points, want 2", chart.Len())
	}
	if !math.IsNaN(chart.values[1][0]) || chart.values[1][1] != 2.7 || chart.values[0][0] != 3 {
		t.Errorf("values %v: want the validation loss only where it was measured", chart.values)
	}
}
