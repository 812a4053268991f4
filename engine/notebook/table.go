package notebook

import (
	"fmt"
	"strings"
)

// Table prints series as a text table: one row per label (the first
// column, headed by head), one column per series headed by its name, each
// value with two decimals. Every series must have one value per label. For
// head "n", labels [25 50] and a series "greedy" [0.33 0.5]:
//
//	n    greedy
//	25     0.33
//	50     0.50
func Table(head string, labels []string, series ...Series) string {
	width := len([]rune(head))
	for _, l := range labels {
		width = max(width, len([]rune(l)))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s", width, head)
	for _, s := range series {
		if len(s.Values) != len(labels) {
			panic(fmt.Sprintf("notebook.Table: series %q has %d values for %d labels", s.Name, len(s.Values), len(labels)))
		}
		fmt.Fprintf(&b, "  %*s", max(6, len([]rune(s.Name))), s.Name)
	}
	b.WriteString("\n")
	for i, l := range labels {
		fmt.Fprintf(&b, "%-*s", width, l)
		for _, s := range series {
			fmt.Fprintf(&b, "  %*.2f", max(6, len([]rune(s.Name))), s.Values[i])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// IntLabels returns the numbers as labels for a chart's x axis or a table's
// rows: IntLabels(25, 50) = ["25" "50"].
func IntLabels(xs ...int) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprint(x)
	}
	return out
}
