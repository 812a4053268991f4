package notebook

import (
	"fmt"
	"math"

	"github.com/tokenbytoken/course/engine/train"
)

// LossChart returns a live chart of a training run's loss and the function
// to pass as train.Options.OnStep: after every step it adds the step's
// training loss and, at the steps where the trainer measured it, the
// validation loss (the line's other points are left empty). Call the
// chart's Done when training ends.
func LossChart(title string) (*LiveLines, func(train.Progress)) {
	chart := NewLiveLines(title, "step", "nats per token", "training loss", "validation loss")
	return chart, func(p train.Progress) {
		val := math.NaN() // measured only every EvalEvery steps
		if p.Evaluated {
			val = p.ValLoss
		}
		chart.Add(fmt.Sprint(p.Step), p.Loss, val)
	}
}
