package engine

import (
	"os"
	"testing"
	"time"

	"github.com/tokenbytoken/course/engine/constrain"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
)

// BenchmarkConstraintOverhead measures, in one run, what a constraint adds
// to a decode step of SmolLM2 (49,152 tokens) and what the step's forward
// pass costs, per generated token: the city schema in chat, sampled at
// temperature 0.9, a new seed each generation, with the work of Generate's
// constrained chooser (the mask, its copy onto the logits, the mass of the
// allowed tokens, the move past the token; the mass is computed twice,
// once timed and once by pick). warm shares one Constraint
// between the generations, as a program serving many requests with one
// schema would; cold starts every generation with a new Constraint, so
// every state is met for the first time. The reported metrics:
// mask-ns/token and forward-ns/token, their ratio mask-%, and the slowest
// single mask (max-mask-ns).
func BenchmarkConstraintOverhead(b *testing.B) {
	m, tok, err := LoadGGUF(testmodel.Path(b, testmodel.SmolLM2))
	if err != nil {
		b.Fatal(err)
	}
	schema, err := os.ReadFile("constrain/testdata/city.json")
	if err != nil {
		b.Fatal(err)
	}
	g, err := constrain.JSONSchema(schema)
	if err != nil {
		b.Fatal(err)
	}
	v, err := tok.ConstraintVocabulary()
	if err != nil {
		b.Fatal(err)
	}
	prompt, err := tok.ChatPrompt([]Message{{Role: "user", Content: "Describe a city as JSON."}}, true)
	if err != nil {
		b.Fatal(err)
	}
	ids, err := tok.Encode(prompt, true, false)
	if err != nil {
		b.Fatal(err)
	}
	const maxNew = 100
	for _, mode := range []string{"warm", "cold"} {
		b.Run(mode, func(b *testing.B) {
			var maskTime, forwardTime, slowest time.Duration
			steps := 0
			st := m.NewState()
			// generate runs one generation with c; record adds its times
			// to the totals.
			generate := func(c *Constraint, seed uint64, record bool) {
				b.StopTimer()
				logits, err := st.Prefill(ids, 0)
				if err != nil {
					b.Fatal(err)
				}
				opts := Options{Temperature: 0.9, Seed: seed}
				sampler := opts.sampler()
				guide := c.NewGuide()
				seq := append([]int(nil), ids...)
				b.StartTimer()
				for n := range maxNew {
					prev := seq[len(seq)-1]
					t0 := time.Now()
					allowed := guide.Allowed(prev, maxNew-n)
					if allowed.Count() == 0 {
						b.Fatal("unsatisfiable")
					}
					masked := guide.apply(allowed, logits)
					spent := time.Since(t0)
					// The mass of the allowed tokens, which pick also
					// computes, given the logits' logSumExp, which it needs
					// without a constraint too.
					lse := logSumExp(logits)
					t0 = time.Now()
					logMass(logits, lse, allowed)
					spent += time.Since(t0)
					s, err := opts.pick(sampler, tok, logits, masked, allowed, seq)
					if err != nil {
						b.Fatal(err)
					}
					t0 = time.Now()
					err = guide.Accept(prev, s.ID)
					spent += time.Since(t0)
					if err != nil {
						b.Fatal(err)
					}
					seq = append(seq, s.ID)
					if tok.IsEnd(s.ID) || guide.Done() {
						break
					}
					t0 = time.Now()
					if logits, err = st.Forward(s.ID, len(seq)-1); err != nil {
						b.Fatal(err)
					}
					if record {
						maskTime += spent
						slowest = max(slowest, spent)
						forwardTime += time.Since(t0)
						steps++
					}
				}
			}
			shared := &Constraint{c: constrain.New(g, v), tok: tok}
			if mode == "warm" {
				for seed := range uint64(3) {
					generate(shared, 1000+seed, false)
				}
			}
			seed := uint64(0)
			for b.Loop() {
				c := shared
				if mode == "cold" {
					c = &Constraint{c: constrain.New(g, v), tok: tok}
				}
				generate(c, seed, true)
				seed++
			}
			b.ReportMetric(float64(maskTime.Nanoseconds())/float64(steps), "mask-ns/token")
			b.ReportMetric(float64(forwardTime.Nanoseconds())/float64(steps), "forward-ns/token")
			b.ReportMetric(100*maskTime.Seconds()/forwardTime.Seconds(), "mask-%")
			b.ReportMetric(float64(slowest.Nanoseconds()), "max-mask-ns")
			b.ReportMetric(float64(steps)/float64(b.N), "tokens/op")
		})
	}
}
