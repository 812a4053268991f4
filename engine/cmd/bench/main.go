// Command bench measures the engine's speed on a llama2.c checkpoint: the
// prefill of a prompt (batched, and token by token for comparison), the
// decode of new tokens, the cost of every part of the forward pass, the KV
// cache's size, and what generating without the cache or with speculative
// decoding changes. It prints figures; it checks nothing.
//
// Usage:
//
//	bench -model stories260K.bin [-steps 256] [-prompt 128] [-runs 3] [-draft draft.bin -speculate 4]
//
// To measure on a bigger model than the ones at hand, it can also write a
// model with random weights (and a matching tokenizer) of any shape:
//
//	bench -make-model /tmp/random15M.bin -make-tokenizer /tmp/tok32000.bin \
//	      -dim 288 -hidden 768 -layers 6 -heads 6 -kv-heads 6 -vocab 32000 -seq-len 256
//
// Timings are wall-clock and vary with whatever else the machine is doing;
// the best of -runs repetitions is printed.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"time"

	"github.com/tokenbytoken/course/engine"
)

func main() {
	var (
		modelPath = flag.String("model", "", "llama2.c checkpoint to measure")
		steps     = flag.Int("steps", 256, "positions to decode, starting from BOS (like llama2.c's -n)")
		promptLen = flag.Int("prompt", 128, "prompt length in tokens for the prefill measurement")
		runs      = flag.Int("runs", 3, "repetitions of each measurement; the best is printed")
		noCache   = flag.Int("no-cache", 64, "tokens to generate with and without the KV cache (0 skips)")
		draftPath = flag.String("draft", "", "draft checkpoint for a speculative decoding measurement")
		gamma     = flag.Int("speculate", 4, "tokens the draft proposes per round (with -draft or -draft-layers)")
		draftL    = flag.Int("draft-layers", 0, "use the model's own first N layers as the draft (a layer-skipping draft) for a speculative decoding measurement")

		makeModel = flag.String("make-model", "", "write a model with random weights to this path and exit")
		makeTok   = flag.String("make-tokenizer", "", "with -make-model: also write a tokenizer of matching vocabulary")
		seed      = flag.Uint64("seed", 1, "seed of the random weights")
		shape     engine.Config
	)
	flag.IntVar(&shape.Dim, "dim", 288, "with -make-model: model width")
	flag.IntVar(&shape.HiddenDim, "hidden", 768, "with -make-model: MLP width")
	flag.IntVar(&shape.NLayers, "layers", 6, "with -make-model: layers")
	flag.IntVar(&shape.NHeads, "heads", 6, "with -make-model: query heads")
	flag.IntVar(&shape.NKVHeads, "kv-heads", 6, "with -make-model: key/value heads")
	flag.IntVar(&shape.VocabSize, "vocab", 32000, "with -make-model: vocabulary size")
	flag.IntVar(&shape.SeqLen, "seq-len", 256, "with -make-model: context length")
	flag.Parse()

	if *makeModel != "" {
		shape.SharedClassifier = true
		if err := writeRandom(*makeModel, *makeTok, shape, *seed); err != nil {
			fatal(err)
		}
		return
	}
	if *modelPath == "" {
		fatal(fmt.Errorf("-model is required (or -make-model to write a random one)"))
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"steps", *steps}, {"prompt", *promptLen}, {"runs", *runs}} {
		if f.v < 1 {
			fatal(fmt.Errorf("-%s = %d: must be at least 1", f.name, f.v))
		}
	}
	m, err := engine.LoadModel(*modelPath)
	if err != nil {
		fatal(err)
	}
	c := m.Config
	if *steps > c.SeqLen || *promptLen > c.SeqLen {
		fatal(fmt.Errorf("-steps = %d and -prompt = %d must fit the model's context of %d tokens", *steps, *promptLen, c.SeqLen))
	}
	fmt.Printf("model     %s\nshape     %v\nweights   %.2fM parameters, %.1f MB\ncores     GOMAXPROCS=%d\n\n",
		m.Name, c, float64(c.NumParams())/1e6, float64(c.NumParams())*4/1e6, runtime.GOMAXPROCS(0))

	// Decode: greedy from BOS, one position at a time, as llama2.c's run.c
	// does with -t 0 -n steps.
	var decodeProfile engine.Profile
	decode := best(*runs, func() time.Duration {
		st := m.NewState()
		token := 1
		start := time.Now()
		for pos := range *steps {
			logits, err := st.Forward(token, pos)
			if err != nil {
				fatal(err)
			}
			token = engine.Argmax(logits)
		}
		return time.Since(start)
	})
	fmt.Printf("decode    %d positions  %8.1f ms  %9.1f tok/s\n", *steps, ms(decode), float64(*steps)/decode.Seconds())

	// Prefill: the same random prompt batched, then token by token.
	r := rand.New(rand.NewPCG(*seed, 2))
	prompt := make([]int, *promptLen)
	for i := range prompt {
		prompt[i] = r.IntN(c.VocabSize)
	}
	prompt[0] = 1
	batched := best(*runs, func() time.Duration {
		st := m.NewState()
		start := time.Now()
		if _, err := st.Prefill(prompt, 0); err != nil {
			fatal(err)
		}
		return time.Since(start)
	})
	sequential := best(*runs, func() time.Duration {
		st := m.NewState()
		start := time.Now()
		for pos, id := range prompt {
			if _, err := st.Forward(id, pos); err != nil {
				fatal(err)
			}
		}
		return time.Since(start)
	})
	fmt.Printf("prefill   %d tokens batched     %8.1f ms  %9.1f tok/s\n", len(prompt), ms(batched), float64(len(prompt))/batched.Seconds())
	fmt.Printf("prefill   %d tokens one by one  %8.1f ms  %9.1f tok/s  (batched is %.1fx faster)\n\n",
		len(prompt), ms(sequential), float64(len(prompt))/sequential.Seconds(), sequential.Seconds()/batched.Seconds())

	// Where the time goes.
	st := m.NewState()
	st.Profile = &decodeProfile
	token := 1
	for pos := range *steps {
		logits, _ := st.Forward(token, pos)
		token = engine.Argmax(logits)
	}
	fmt.Printf("decode, per part (%d positions; timing every part slows the pass a little):\n", *steps)
	decodeProfile.WriteTable(os.Stdout)
	var prefillProfile engine.Profile
	st = m.NewState()
	st.Profile = &prefillProfile
	st.Prefill(prompt, 0)
	fmt.Printf("\nprefill, per part (%d tokens in one pass):\n", len(prompt))
	prefillProfile.WriteTable(os.Stdout)

	// The KV cache: formula and what the runtime allocated.
	runtime.GC()
	var kv *engine.KVCache
	measured := engine.AllocatedBytes(func() { kv, err = engine.NewKVCache(c) })
	if err != nil {
		fatal(err)
	}
	fmt.Printf("\nKV cache  formula 2 × %d layers × %d kv_heads × %d head_size × %d positions × 4 B = %d B (%.2f MB); allocated %d B\n",
		c.NLayers, c.NKVHeads, c.HeadSize(), c.SeqLen, engine.KVCacheBytes(c, c.SeqLen), float64(engine.KVCacheBytes(c, c.SeqLen))/1e6, measured)
	_ = kv

	if *noCache > 0 {
		n := min(*noCache, c.SeqLen-1)
		gen := func(lm engine.LM) func() time.Duration {
			return func() time.Duration {
				start := time.Now()
				for _, err := range engine.SampleLoop(lm, []int{1}, n, engine.Argmax, nil) {
					if err != nil {
						fatal(err)
					}
				}
				return time.Since(start)
			}
		}
		with := best(*runs, gen(engine.NewModelLM(m, 1)))
		nc := engine.NewNoCacheLM(m)
		var scratch uint64
		without := best(*runs, func() time.Duration {
			var d time.Duration
			scratch = engine.AllocatedBytes(func() { nc = engine.NewNoCacheLM(m); d = gen(nc)() })
			return d
		})
		fmt.Printf("no cache  %d tokens: with cache %.1f ms, without %.1f ms (%.1fx slower; %d positions computed instead of %d; %d B allocated without cache)\n",
			n, ms(with), ms(without), without.Seconds()/with.Seconds(), nc.Positions, n, scratch)
	}

	if *draftPath != "" || *draftL > 0 {
		var d *engine.Model
		if *draftL > 0 {
			d, err = firstLayers(m, *draftL)
		} else {
			d, err = engine.LoadModel(*draftPath)
		}
		if err != nil {
			fatal(err)
		}
		n := *steps - 1
		plain := best(*runs, func() time.Duration {
			start := time.Now()
			for _, err := range engine.SampleLoop(engine.NewModelLM(m, 1), []int{1}, n, engine.Argmax, nil) {
				if err != nil {
					fatal(err)
				}
			}
			return time.Since(start)
		})
		var stats engine.SpeculativeStats
		spec := best(*runs, func() time.Duration {
			start := time.Now()
			stats, err = engine.Speculative(engine.NewModelLM(m, 1), engine.NewModelLM(d, 1), []int{1},
				engine.SpeculativeOptions{Gamma: *gamma, MaxNewTokens: n}, nil)
			if err != nil {
				fatal(err)
			}
			return time.Since(start)
		})
		fmt.Printf("speculative  γ=%d draft %s: %d tokens, acceptance %.2f, %.2f tokens per target pass, %.1f ms vs %.1f ms plain: %.2fx speed-up\n",
			*gamma, d.Name, len(stats.Tokens), stats.AcceptanceRate(), stats.TokensPerTargetPass(), ms(spec), ms(plain), plain.Seconds()/spec.Seconds())
	}
}

// firstLayers makes a draft model from the first n layers of m, sharing
// its embedding, final norm and classifier: the same computation cut short.
func firstLayers(m *engine.Model, n int) (*engine.Model, error) {
	c := m.Config
	if n < 1 || n >= c.NLayers {
		return nil, fmt.Errorf("-draft-layers = %d: must be between 1 and %d (the model has %d layers)", n, c.NLayers-1, c.NLayers)
	}
	d := c
	d.NLayers = n
	w := *m.Weights
	cut := func(t []float32) []float32 { return t[:len(t)/c.NLayers*n] }
	w.RMSAtt, w.Wq, w.Wk, w.Wv, w.Wo = cut(w.RMSAtt), cut(w.Wq), cut(w.Wk), cut(w.Wv), cut(w.Wo)
	w.RMSFFN, w.W1, w.W2, w.W3 = cut(w.RMSFFN), cut(w.W1), cut(w.W2), cut(w.W3)
	return &engine.Model{Config: d, Weights: &w, Name: fmt.Sprintf("first %d of %d layers of %s", n, c.NLayers, m.Name)}, nil
}

// best runs f n times and returns the shortest time.
func best(n int, f func() time.Duration) time.Duration {
	b := f()
	for range n - 1 {
		b = min(b, f())
	}
	return b
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

// writeRandom writes a model of the given shape with random weights (and,
// if tokPath is set, a tokenizer with as many tokens: the llama2.c special
// tokens, the 256 byte tokens, then made-up pieces).
func writeRandom(modelPath, tokPath string, c engine.Config, seed uint64) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("shape: %w", err)
	}
	r := rand.New(rand.NewPCG(seed, 1))
	w, err := engine.NewWeights(c)
	if err != nil {
		return err
	}
	for _, t := range w.Tensors(c) {
		for i := range t.Data {
			t.Data[i] = float32(r.NormFloat64() * 0.02)
		}
	}
	for _, g := range [][]float32{w.RMSAtt, w.RMSFFN, w.RMSFinal} {
		for i := range g {
			g[i] = 1
		}
	}
	m := &engine.Model{Config: c, Weights: w}
	if err := m.Save(modelPath); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %v, %.2fM parameters\n", modelPath, c, float64(c.NumParams())/1e6)
	if tokPath == "" {
		return nil
	}
	pieces := []string{"<unk>", "<s>", "</s>"}
	for b := range 256 {
		pieces = append(pieces, fmt.Sprintf("<0x%02X>", b))
	}
	for i := len(pieces); i < c.VocabSize; i++ {
		pieces = append(pieces, fmt.Sprintf(" w%d", i))
	}
	if len(pieces) > c.VocabSize {
		return fmt.Errorf("a tokenizer needs at least %d tokens (specials and bytes), the shape has %d", len(pieces), c.VocabSize)
	}
	scores := make([]float32, len(pieces))
	for i := range scores {
		scores[i] = -float32(i)
	}
	tok, err := engine.NewTokenizer(pieces, scores, 0)
	if err != nil {
		return err
	}
	if err := tok.Save(tokPath); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d tokens\n", tokPath, tok.VocabSize())
	return nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}
