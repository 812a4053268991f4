package schedule

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/tokenbytoken/course/engine/decoding"
)

// BenchmarkSequences generates 64 tokens (greedy, SmolLM2) for each of n
// sequences at once through one scheduler, and reports the tokens made a
// second by all of them together; "alone" is one generation with
// decoding.Generate's own passes, the single-stream rate to compare with.
func BenchmarkSequences(b *testing.B) {
	m, tok, err := smolLM2Bench(b)
	if err != nil {
		b.Skip(err)
	}
	const tokens = 64
	j := job{prompt: "The capital of France is", opts: decoding.Options{MaxNewTokens: tokens, NoLogProbs: true}}
	// A first generation reads the model's mapped file into memory, so
	// that no timed row pays for it.
	if r := generate(context.Background(), nil, m, tok, j); r.err != nil {
		b.Fatal(r.err)
	}
	b.Run("alone", func(b *testing.B) {
		for b.Loop() {
			if r := generate(context.Background(), nil, m, tok, j); r.err != nil {
				b.Fatal(r.err)
			}
		}
		b.ReportMetric(float64(tokens*b.N)/b.Elapsed().Seconds(), "tok/s")
	})
	for _, n := range []int{1, 4, 16, 32} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s, err := New(m, Config{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for b.Loop() {
				var wg sync.WaitGroup
				for i := range n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						jj := j
						jj.prompt = fmt.Sprintf("%d. The capital of France is", i)
						if r := generate(context.Background(), s, m, tok, jj); r.err != nil {
							b.Error(r.err)
						}
					}()
				}
				wg.Wait()
			}
			b.ReportMetric(float64(n*tokens*b.N)/b.Elapsed().Seconds(), "tok/s")
		})
	}
}
