package schedule

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tokenbytoken/course/engine/decoding"
)

// BenchmarkSequences generates 64 tokens (greedy, SmolLM2, its end tokens
// banned so that every answer has 64) for each of n sequences at once
// through one scheduler, and reports the tokens made a second by all of
// them together; "alone" is one generation with decoding.Generate's own
// passes, the single-stream rate to compare with.
func BenchmarkSequences(b *testing.B) {
	m, tok, err := smolLM2Bench(b)
	if err != nil {
		b.Skip(err)
	}
	const tokens = 64
	ban := float32(math.Inf(-1))
	j := job{prompt: "The capital of France is", opts: decoding.Options{MaxNewTokens: tokens, NoLogProbs: true, LogitBias: map[int]float32{0: ban, 2: ban}}}
	// A first generation reads the model's mapped file into memory, so
	// that no timed row pays for it.
	if r := generate(context.Background(), nil, m, tok, j); r.err != nil {
		b.Fatal(r.err)
	}
	b.Run("alone", func(b *testing.B) {
		made := 0
		for b.Loop() {
			r := generate(context.Background(), nil, m, tok, j)
			if r.err != nil {
				b.Fatal(r.err)
			}
			made += len(r.ids)
		}
		b.ReportMetric(float64(made)/b.Elapsed().Seconds(), "tok/s")
	})
	for _, n := range []int{1, 4, 16, 32} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s, err := New(m, Config{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			var made atomic.Int64
			for b.Loop() {
				var wg sync.WaitGroup
				for i := range n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						jj := j
						jj.prompt = fmt.Sprintf("%d. The capital of France is", i)
						r := generate(context.Background(), s, m, tok, jj)
						if r.err != nil {
							b.Error(r.err)
						}
						made.Add(int64(len(r.ids)))
					}()
				}
				wg.Wait()
			}
			if want := int64(n * tokens * b.N); made.Load() != want {
				b.Errorf("%d tokens made, want %d", made.Load(), want)
			}
			b.ReportMetric(float64(made.Load())/b.Elapsed().Seconds(), "tok/s")
		})
	}
}
