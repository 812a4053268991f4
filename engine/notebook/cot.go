package notebook

import (
	"fmt"
	"strings"
)

// Percents prints shares as whole percentages, "[16% 82% 97%]".
func Percents(shares []float64) string {
	parts := make([]string, len(shares))
	for i, s := range shares {
		parts[i] = fmt.Sprintf("%.0f%%", 100*s)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
