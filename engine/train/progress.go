package train

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// ProgressBar returns an OnStep hook that draws a one-line progress bar on
// a terminal, redrawn in place after every step:
//
//	target [########..........] 412/1500 loss 2.71 val 2.80 3.1k tok/s 12m40s left
//
// When validation runs, the line is kept and a new one started, so the
// terminal keeps a short history of validation losses.
func ProgressBar(w io.Writer, label string) func(Progress) {
	const width = 24
	return func(p Progress) {
		filled := width * p.Step / max(p.Steps, 1)
		bar := strings.Repeat("#", filled) + strings.Repeat(".", width-filled)
		val := ""
		if !math.IsNaN(p.ValLoss) {
			val = fmt.Sprintf(" val %.3f", p.ValLoss)
		}
		fmt.Fprintf(w, "\r%s [%s] %d/%d loss %.3f%s lr %.2g %s tok/s %s left   ",
			label, bar, p.Step, p.Steps, p.Loss, val, p.LR, humanRate(p.TokensPerSec), shortDuration(p.Remaining))
		if p.Evaluated || p.Step == p.Steps {
			fmt.Fprintln(w)
		}
	}
}

func humanRate(r float64) string {
	if r >= 1000 {
		return fmt.Sprintf("%.1fk", r/1000)
	}
	return fmt.Sprintf("%.0f", r)
}

func shortDuration(d time.Duration) string {
	if d >= time.Minute {
		return d.Round(time.Second).String()
	}
	return d.Round(100 * time.Millisecond).String()
}
