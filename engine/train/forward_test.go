package train

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

// TestForwardMatchesEngine trains a tiny model for a few steps, saves it as
// a llama2.c checkpoint, loads it with engine.LoadModel and checks that the
// engine's one-token-at-a-time forward pass gives the same logits as the
// trainer's batched forward pass, at every position. The longer context
// spans several of attention's causal bands, the last one partial.
func TestForwardMatchesEngine(t *testing.T) {
	for _, T := range []int{12, 2*causalBand + 22} {
		t.Run(fmt.Sprintf("T=%d", T), func(t *testing.T) { testForwardMatchesEngine(t, T) })
	}
}

func testForwardMatchesEngine(t *testing.T, T int) {
	c := tinyConfig
	c.SeqLen = T
	p, err := NewParams(c)
	if err != nil {
		t.Fatal(err)
	}
	p.Init(11)
	tokens, targets := tinyBatch(c, 2, c.SeqLen, 9)
	// A few optimizer steps move the weights away from initialisation
	// (gains away from 1) so every tensor matters.
	n := newNet(p, 2, c.SeqLen)
	grad, _ := NewParams(c)
	opt := NewAdamW(c, 0.9, 0.95, adamEps, 0.1)
	for range 5 {
		n.forward(tokens, targets)
		n.backward(grad)
		opt.Update(p.Data, grad.Data, 1e-2)
	}
	path := filepath.Join(t.TempDir(), "m.bin")
	trained, err := p.Model()
	if err != nil {
		t.Fatal(err)
	}
	if err := trained.Save(path); err != nil {
		t.Fatal(err)
	}
	m, err := engine.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.Config != c {
		t.Fatalf("loaded config %v, want %v", m.Config, c)
	}
	n.forward(tokens, targets)
	V := c.VocabSize
	for b := range 2 {
		st := m.NewState()
		for pos := range c.SeqLen {
			logits, err := st.Forward(int(tokens[b*c.SeqLen+pos]), pos)
			if err != nil {
				t.Fatal(err)
			}
			// n.logits now holds probabilities: compare log-softmax.
			probs := n.logits[(b*c.SeqLen+pos)*V : (b*c.SeqLen+pos+1)*V]
			want := decoding.LogSoftmax(logits)
			for j := range V {
				got := math.Log(float64(probs[j]))
				if math.Abs(got-want[j]) > 1e-4*(1+math.Abs(want[j])) {
					t.Fatalf("sequence %d position %d token %d: trainer log p %.6f, engine %.6f", b, pos, j, got, want[j])
				}
			}
		}
	}
}
