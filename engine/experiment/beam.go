package experiment

import (
	"math"
	"strings"
)

// WordLM is a hand-built language model over a few words, for trees small
// enough to check by hand: the probability of the next word depends only
// on the last one, Next[last][word]. A word missing from its row gets
// probability 0 (logit −Inf) and can never follow; a word without a row
// has no continuation at all. Token i is Words[i].
type WordLM struct {
	Words []string
	Next  map[string]map[string]float64
}

// VocabSize is the number of words.
func (m WordLM) VocabSize() int { return len(m.Words) }

// ContextLength is 16 words, more than the trees need.
func (m WordLM) ContextLength() int { return 16 }

// NextLogits returns, for each of the last n prefixes, the log-probability
// of every word after the prefix's last word (decoding.LM).
func (m WordLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	rows := make([][]float32, n)
	for i := range rows {
		last := m.Words[prefix[len(prefix)-n+i]]
		rows[i] = make([]float32, len(m.Words))
		for id, w := range m.Words {
			rows[i][id] = float32(math.Log(m.Next[last][w]))
		}
	}
	return rows, nil
}

// Text joins the words of token ids.
func (m WordLM) Text(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(m.Words[id])
	}
	return b.String()
}
