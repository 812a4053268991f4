package engine

import (
	"fmt"
	"math"
)

// tableLM is a hand-built language model: probs gives the next-token
// distribution after a prefix. Tests use it to check beam search and
// speculative decoding on distributions small enough to work out by hand.
type tableLM struct {
	vocab int
	probs func(prefix []int) []float64
	calls int
}

func (m *tableLM) VocabSize() int     { return m.vocab }
func (m *tableLM) ContextLength() int { return 1 << 20 }

func (m *tableLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	if err := checkQuestion(m, prefix, n); err != nil {
		return nil, err
	}
	m.calls++
	rows := make([][]float32, n)
	for i := range rows {
		p := m.probs(prefix[:len(prefix)-n+1+i])
		if len(p) != m.vocab {
			panic(fmt.Sprintf("table gives %d probabilities for a vocabulary of %d", len(p), m.vocab))
		}
		rows[i] = make([]float32, m.vocab)
		for j, v := range p {
			rows[i][j] = float32(math.Log(v))
		}
	}
	return rows, nil
}

// fixedLM always predicts the same distribution.
func fixedLM(p ...float64) *tableLM {
	return &tableLM{vocab: len(p), probs: func([]int) []float64 { return p }}
}

// key turns a prefix into a map key.
func key(prefix []int) string { return fmt.Sprint(prefix) }
