package notebook

import (
	"fmt"

	"github.com/tokenbytoken/course/engine"
)

// RankLabels returns a label for each rank 1 … n ("1", "2", …): the x axis
// of a chart of sorted probabilities.
func RankLabels(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprint(i + 1)
	}
	return out
}

// TopLabels returns a chart label (see TokenLabel) for every token of top,
// its text given by piece (a tokenizer's Piece method).
func TopLabels(top []engine.TokenLogProb, piece func(id int) string) []string {
	labels := make([]string, len(top))
	for i, t := range top {
		labels[i] = TokenLabel(piece(t.ID))
	}
	return labels
}
