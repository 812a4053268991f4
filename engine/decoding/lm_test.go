package decoding

import (
	"fmt"
	"math"
	"testing"
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

// TestDecodeNoLogProbs: Decode with NoLogProbs yields the same tokens and
// leaves their log-probabilities NaN; without it they are the model's.
func TestDecodeNoLogProbs(t *testing.T) {
	lm := fixedLM(0.5, 0.25, 0.25)
	for _, skip := range []bool{false, true} {
		n := 0
		for s, err := range Decode(t.Context(), lm, []int{0}, Options{MaxNewTokens: 3, NoLogProbs: skip}) {
			if err != nil {
				t.Fatal(err)
			}
			if s.ID == NoToken {
				continue
			}
			n++
			if want := math.Log(0.5); s.ID != 0 || skip && !math.IsNaN(s.LogProb) || !skip && math.Abs(s.LogProb-want) > 1e-6 {
				t.Errorf("NoLogProbs %v: token %d with LogProb %v; want token 0 with %s", skip, s.ID, s.LogProb, map[bool]string{true: "NaN", false: fmt.Sprint(want)}[skip])
			}
		}
		if n != 3 {
			t.Errorf("NoLogProbs %v: %d tokens, want 3", skip, n)
		}
	}
}
