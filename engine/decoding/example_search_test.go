package decoding_test

import (
	"context"
	"fmt"
	"math"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

// treeLM is a hand-built language model: a table from the last token of
// the prefix to the next-token probabilities.
type treeLM map[int][]float64

func (m treeLM) VocabSize() int     { return 4 }
func (m treeLM) ContextLength() int { return 16 }
func (m treeLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	rows := make([][]float32, n)
	for i := range rows {
		p := m[prefix[len(prefix)-n+i]]
		rows[i] = make([]float32, len(p))
		for j, v := range p {
			rows[i][j] = float32(math.Log(v))
		}
	}
	return rows, nil
}

// Greedy decoding takes the most likely first token and is stuck with its
// continuation; beam search with two beams keeps the runner-up and finds
// the more likely pair.
func ExampleBeam() {
	const start, a, b, c = 0, 1, 2, 3
	lm := treeLM{
		start: {0, 0.5, 0.4, 0.1}, // a is the best first token...
		a:     {0, 0.4, 0.3, 0.3}, // ...but nothing after it is likely,
		b:     {0, 0.9, 0.05, 0.05},
		c:     {0, 0.4, 0.3, 0.3},
	}
	for _, width := range []int{1, 2} {
		var tokens []int
		for step, err := range decoding.Decode(context.Background(), lm, []int{start}, decoding.Options{MaxNewTokens: 2, Decoder: decoding.Beam{Width: width}}) {
			if err != nil {
				panic(err)
			}
			tokens = append(tokens, step.ID)
			if step.Finish != "" {
				res := step.Stats.Report.(*decoding.BeamResult)
				fmt.Printf("width %d: tokens %v, probability %.2f, %d nodes in the tree\n",
					width, tokens, math.Exp(res.Best.CumLogProb), len(res.Tree))
			}
		}
	}
	// Output:
	// width 1: tokens [1 1], probability 0.20, 3 nodes in the tree
	// width 2: tokens [2 1], probability 0.36, 7 nodes in the tree
}

// The KV cache of stories15M's shape at its full context of 256 tokens.
func ExampleKVCacheBytes() {
	c := engine.Config{Dim: 288, HiddenDim: 768, NLayers: 6, NHeads: 6, NKVHeads: 6, VocabSize: 32000, SeqLen: 256}
	fmt.Printf("%d bytes\n", engine.KVCacheBytes(c, c.SeqLen))
	// Output:
	// 3538944 bytes
}
