package notebook

import (
	"strconv"
)

// CountLabels returns the chart labels "1", "2", … "n": the x axis of
// something counted per step.
func CountLabels(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i + 1)
	}
	return out
}
