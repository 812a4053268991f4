package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tokenbytoken/course/engine"
)

// tinyConfig is a model small enough to check gradient by gradient, with
// grouped-query attention (4 query heads share 2 key/value heads).
var tinyConfig = engine.Config{Dim: 16, HiddenDim: 24, NLayers: 2, NHeads: 4, NKVHeads: 2,
	VocabSize: MinVocabSize + 9, SeqLen: 8, SharedClassifier: true}

func tinyBatch(c engine.Config, B, T int, seed uint64) (tokens, targets []int32) {
	r := rand.New(rand.NewPCG(seed, 1))
	for range B * T {
		tokens = append(tokens, int32(r.IntN(c.VocabSize)))
		targets = append(targets, int32(r.IntN(c.VocabSize)))
	}
	targets[3] = -1 // an ignored position
	return tokens, targets
}

// TestGradientsMatchFiniteDifferences compares the analytic gradient of
// every tensor with central differences (L(w+h) − L(w−h)) / 2h on a
// sample of entries. The longer context spans several of attention's
// causal bands, the last one partial.
func TestGradientsMatchFiniteDifferences(t *testing.T) {
	for _, T := range []int{tinyConfig.SeqLen, 2*causalBand + 22} {
		t.Run(fmt.Sprintf("T=%d", T), func(t *testing.T) { testGradients(t, T) })
	}
}

func testGradients(t *testing.T, T int) {
	c := tinyConfig
	c.SeqLen = T
	p, err := NewParams(c)
	if err != nil {
		t.Fatal(err)
	}
	p.Init(7)
	// Larger weights than at initialisation, and gains away from 1, so
	// that every path carries a visible gradient.
	r := rand.New(rand.NewPCG(3, 4))
	for i := range p.Data {
		p.Data[i] += float32(r.NormFloat64() * 0.3)
	}
	B := 2
	tokens, targets := tinyBatch(c, B, T, 5)
	n := newNet(p, B, T)
	n.forward(tokens, targets)
	grad, _ := NewParams(c)
	n.backward(grad)

	loss := func() float64 {
		l, _ := n.forward(tokens, targets)
		return l
	}
	names := layoutOf(c)
	off := 0
	for _, s := range names {
		checked := 0
		for k := 0; k < 6; k++ {
			i := off + r.IntN(s.n)
			orig := p.Data[i]
			const h = 1e-2
			p.Data[i] = orig + h
			up := loss()
			p.Data[i] = orig - h
			down := loss()
			p.Data[i] = orig
			num := (up - down) / (2 * h)
			got := float64(grad.Data[i])
			if math.Abs(num-got) > 2e-3+0.03*math.Max(math.Abs(num), math.Abs(got)) {
				t.Errorf("%s[%d]: analytic %.6f, numeric %.6f", s.name, i-off, got, num)
			}
			checked++
		}
		if checked == 0 {
			t.Errorf("%s: nothing checked", s.name)
		}
		off += s.n
	}
}
