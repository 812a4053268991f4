package train

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tokenbytoken/course/engine"
)

// DocSize is the size of one training document (see Segments).
type DocSize struct {
	Tokens int // tokens of its text, BOS and EOS not counted
	Lines  int // lines of its text, as counted by Lines
}

// DocumentSizes cuts the sources into documents exactly as Tokenize does
// and returns, in order, the size of every document for which keep returns
// true (every document when keep is nil). The tokens are counted with the
// tokenizer the models train with, so the sizes can be set beside the
// lengths of texts the models write. ctx is checked as in
// EncodeDocumentsContext.
func DocumentSizes(ctx context.Context, srcs []Source, tok *engine.Tokenizer, keep func(doc string) bool) ([]DocSize, error) {
	if tok == nil {
		return nil, fmt.Errorf("document sizes: no tokenizer")
	}
	var docs []string
	for _, s := range srcs {
		for _, d := range Segments(s.Text) {
			if keep == nil || keep(d) {
				docs = append(docs, d)
			}
		}
	}
	enc, err := NewEncoder(tok).encodeEach(ctx, docs)
	if err != nil {
		return nil, fmt.Errorf("document sizes: %w", err)
	}
	sizes := make([]DocSize, len(docs))
	for i, d := range docs {
		sizes[i] = DocSize{Tokens: len(enc[i]), Lines: Lines(d)}
	}
	return sizes, nil
}

// Lines counts the lines of a text, leaving out the blank lines and spaces
// at its end: a document usually ends with the empty line that separated
// it from the next function, which is no line of its own. "func f() {}\n\n"
// is one line, "a\n\nb" three, "" and "\n\n" none.
func Lines(text string) int {
	text = strings.TrimRight(text, " \t\r\n")
	if text == "" {
		return 0
	}
	return strings.Count(text, "\n") + 1
}

// Summary describes a set of lengths by its quantiles. Each quantile q is
// the nearest-rank one: the smallest length that at least a share q of the
// lengths do not exceed (so the median of an even number of lengths is the
// lower of the middle two). All are 0 when N is 0.
type Summary struct {
	N                             int
	Min, Q1, Median, Q3, P90, Max int
	Mean                          float64
}

// Summarize returns the summary of lengths; it does not change its argument.
func Summarize(lengths []int) Summary {
	n := len(lengths)
	if n == 0 {
		return Summary{}
	}
	s := slices.Clone(lengths)
	slices.Sort(s)
	rank := func(num, den int) int { // the nearest rank for num/den, 1-based
		return max(1, (num*n+den-1)/den)
	}
	sum := 0
	for _, x := range s {
		sum += x
	}
	return Summary{
		N: n, Min: s[0], Max: s[n-1],
		Q1: s[rank(1, 4)-1], Median: s[rank(1, 2)-1], Q3: s[rank(3, 4)-1], P90: s[rank(9, 10)-1],
		Mean: float64(sum) / float64(n),
	}
}
