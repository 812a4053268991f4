package decoding

import (
	"fmt"
	"testing"
)

// BenchmarkGreedyPick is what Generate does with a step's logits besides
// the forward pass, greedily: the sampler's checks and argmax, and the
// log-sum-exp behind Step.LogProb, over vocabularies of llama2.c's models
// and SmolLM2's. One op is one token; run it with -cpu 1,2 to see the
// log-sum-exp shared among the cores.
func BenchmarkGreedyPick(b *testing.B) {
	for _, n := range []int{512, 32000, 49152} {
		logits := make([]float32, n)
		for i := range logits {
			logits[i] = float32((i*7919)%1000) / 100 // 0 to 10, in no order
		}
		pick := Options{}.chooser(nil)
		seq := []int{1, 2}
		b.Run(fmt.Sprintf("vocab%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := pick(logits, seq); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
