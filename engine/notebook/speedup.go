package notebook

import (
	"fmt"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/tokenbytoken/course/engine/experiment"
)

// Wall-clock speed-up of speculative decoding (notebook 10).

// SpeedUpChart draws a trial's speed-up against γ, with tokens per target
// pass (the speed-up if a pass over γ+1 tokens cost what a pass over one
// does) and the break-even line at 1.
func SpeedUpChart(title string, t experiment.SpeedTrial) *charts.Line {
	x := make([]string, len(t.Gammas))
	speedup, perPass, one := make([]float64, len(t.Gammas)), make([]float64, len(t.Gammas)), make([]float64, len(t.Gammas))
	for i, g := range t.Gammas {
		x[i] = fmt.Sprint(g)
		speedup[i] = t.SpeedUp(i)
		perPass[i] = t.Stats[i].TokensPerTargetPass()
		one[i] = 1
	}
	return LinesXY(title, "γ (tokens drafted per round)", "×", x,
		Series{Name: "measured speed-up", Values: roundTo(speedup, 3)},
		Series{Name: "tokens per target pass", Values: roundTo(perPass, 3)},
		Series{Name: "break-even", Values: one})
}
