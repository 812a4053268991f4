package notebook

import (
	"fmt"
)

// NumberedLabels returns chart labels "1 piece", "2 piece", … for pieces of
// text, each shown as TokenLabel shows it.
func NumberedLabels(pieces []string) []string {
	out := make([]string, len(pieces))
	for i, p := range pieces {
		out[i] = fmt.Sprintf("%d %s", i+1, TokenLabel(p))
	}
	return out
}
