package decoding

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/constrain"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
)

// BenchmarkConstraintOverhead measures, in one run, what a constraint adds
// to a decode step of SmolLM2 (49,152 tokens) and what the step's forward
// pass costs, per generated token: the city schema, and any JSON
// (json.gbnf), in chat, sampled at
// temperature 0.9, a new seed each generation, with the work of Generate's
// constrained chooser (the mask, its copy onto the logits, the mass of the
// allowed tokens, the move past the token; the mass is computed twice,
// once timed and once by pick). warm shares one Constraint
// between the generations, as a program serving many requests with one
// schema would; cold starts every generation with a new Constraint, so
// every state is met for the first time. The reported metrics:
// mask-ns/token and forward-ns/token, their ratio mask-%, and the slowest
// single mask (max-mask-ns), and the medians of the mask and of the
// forward pass per token, and their ratio (p50-mask-ns, p50-mask-%).
func BenchmarkConstraintOverhead(b *testing.B) {
	m, tok, err := loadGGUFWithTokenizer(testmodel.Path(b, testmodel.SmolLM2))
	if err != nil {
		b.Fatal(err)
	}
	schema, err := os.ReadFile("../constrain/testdata/city.json")
	if err != nil {
		b.Fatal(err)
	}
	city, err := constrain.JSONSchema(schema)
	if err != nil {
		b.Fatal(err)
	}
	src, err := os.ReadFile("../constrain/testdata/json.gbnf")
	if err != nil {
		b.Fatal(err)
	}
	json, err := constrain.ParseGrammar(string(src))
	if err != nil {
		b.Fatal(err)
	}
	v, err := tok.ConstraintVocabulary()
	if err != nil {
		b.Fatal(err)
	}
	prompt, err := tok.ChatPrompt([]engine.Message{{Role: "user", Content: "Describe a city as JSON."}}, true)
	if err != nil {
		b.Fatal(err)
	}
	ids, err := tok.Encode(prompt, true, false)
	if err != nil {
		b.Fatal(err)
	}
	const maxNew = 100
	for _, lang := range []struct {
		name string
		g    *constrain.Grammar
	}{{"schema=city", city}, {"grammar=json", json}} {
		g := lang.g
		for _, mode := range []string{"warm", "cold"} {
			b.Run(lang.name+"/"+mode, func(b *testing.B) {
				var maskTime, forwardTime, slowest time.Duration
				var masks, forwards []time.Duration
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
							fwd := time.Since(t0)
							maskTime += spent
							slowest = max(slowest, spent)
							masks = append(masks, spent)
							forwards = append(forwards, fwd)
							forwardTime += fwd
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
				// Medians: on a loaded machine a single step may be
				// preempted, and one such step moves a mean.
				b.ReportMetric(float64(median(masks).Nanoseconds()), "p50-mask-ns")
				b.ReportMetric(100*median(masks).Seconds()/median(forwards).Seconds(), "p50-mask-%")
				b.ReportMetric(float64(steps)/float64(b.N), "tokens/op")
			})
		}
	}
}

// median is the middle of ds (which it sorts).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}
