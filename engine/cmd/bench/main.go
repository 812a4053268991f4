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
//
// A flag that would change nothing in the run asked for (a shape flag
// without -make-model, -speculate without a draft) is refused rather than
// ignored. The exit status is 2 for a mistake on the command line, 1 when a
// file cannot be used or the work fails (a shape too big for memory
// included).
package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/cli"
)

func main() { os.Exit(status(os.Args[1:], os.Stdout, os.Stderr)) }

// status runs the command and returns its exit status.
func status(args []string, stdout, stderr io.Writer) int {
	return cli.Status("bench", stderr, nil, func() error { return run(args, stdout, stderr) })
}

// settings are the command-line flags.
type settings struct {
	modelPath, draftPath, makeModel, makeTok string
	steps, promptLen, runs, noCache, gamma   int
	draftLayers                              int
	seed                                     uint64
	shape                                    engine.Config
}

// measureFlags and makeFlags belong to one of the two things bench does.
var (
	measureFlags = []string{"steps", "prompt", "runs", "no-cache", "draft", "speculate", "draft-layers"}
	makeFlags    = []string{"make-tokenizer", "dim", "hidden", "layers", "heads", "kv-heads", "vocab", "seq-len"}
)

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var s settings
	fs.StringVar(&s.modelPath, "model", "", "llama2.c checkpoint to measure")
	fs.IntVar(&s.steps, "steps", 256, "positions to decode, starting from BOS (like llama2.c's -n)")
	fs.IntVar(&s.promptLen, "prompt", 128, "prompt length in tokens for the prefill measurement")
	fs.IntVar(&s.runs, "runs", 3, "repetitions of each measurement; the best is printed")
	fs.IntVar(&s.noCache, "no-cache", 64, "tokens to generate with and without the KV cache (0 skips)")
	fs.StringVar(&s.draftPath, "draft", "", "draft checkpoint for a speculative decoding measurement")
	fs.IntVar(&s.gamma, "speculate", 4, "tokens the draft proposes per round (with -draft or -draft-layers)")
	fs.IntVar(&s.draftLayers, "draft-layers", 0, "use the model's own first N layers as the draft (a layer-skipping draft) for a speculative decoding measurement")
	fs.StringVar(&s.makeModel, "make-model", "", "write a model with random weights to this path and exit")
	fs.StringVar(&s.makeTok, "make-tokenizer", "", "with -make-model: also write a tokenizer of matching vocabulary")
	fs.Uint64Var(&s.seed, "seed", 1, "seed of the random weights, and of the prefill's random prompt")
	fs.IntVar(&s.shape.Dim, "dim", 288, "with -make-model: model width")
	fs.IntVar(&s.shape.HiddenDim, "hidden", 768, "with -make-model: MLP width")
	fs.IntVar(&s.shape.NLayers, "layers", 6, "with -make-model: layers")
	fs.IntVar(&s.shape.NHeads, "heads", 6, "with -make-model: query heads")
	fs.IntVar(&s.shape.NKVHeads, "kv-heads", 6, "with -make-model: key/value heads")
	fs.IntVar(&s.shape.VocabSize, "vocab", 32000, "with -make-model: vocabulary size")
	fs.IntVar(&s.shape.SeqLen, "seq-len", 256, "with -make-model: context length")
	set, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if err := cli.NoArgs(fs); err != nil {
		return err
	}
	if s.makeModel != "" {
		if set["model"] {
			return cli.Usagef("-model measures a model and -make-model writes one: use one at a time")
		}
		if err := cli.OnlyWith(set, "when measuring a model (-model)", measureFlags...); err != nil {
			return err
		}
		s.shape.SharedClassifier = true
		if err := s.shape.Validate(); err != nil {
			return cli.Usagef("shape: %v", err)
		}
		if s.makeTok != "" && s.shape.VocabSize < minTokenizerVocab {
			return cli.Usagef("-vocab = %d: a tokenizer needs at least %d tokens (3 special, 256 bytes)", s.shape.VocabSize, minTokenizerVocab)
		}
		return writeRandom(s.makeModel, s.makeTok, s.shape, s.seed, stdout)
	}
	if err := cli.OnlyWith(set, "with -make-model", makeFlags...); err != nil {
		return err
	}
	if s.modelPath == "" {
		return cli.Usagef("-model is required (or -make-model to write a random one)")
	}
	for _, f := range []struct {
		name string
		v    int
		min  int
	}{{"steps", s.steps, 1}, {"prompt", s.promptLen, 1}, {"runs", s.runs, 1}, {"no-cache", s.noCache, 0}, {"draft-layers", s.draftLayers, 0}, {"speculate", s.gamma, 1}} {
		if f.v < f.min {
			return cli.Usagef("-%s = %d: must be at least %d", f.name, f.v, f.min)
		}
	}
	if s.draftPath != "" && s.draftLayers > 0 {
		return cli.Usagef("-draft and -draft-layers are two drafts: use one at a time")
	}
	if set["speculate"] && s.draftPath == "" && s.draftLayers == 0 {
		return cli.Usagef("-speculate = %d needs a draft: -draft PATH or -draft-layers N", s.gamma)
	}
	return measure(s, stdout)
}

// measure prints the speed figures of a model.
func measure(s settings, stdout io.Writer) error {
	m, err := engine.LoadModel(s.modelPath)
	if err != nil {
		return err
	}
	c := m.Config
	if s.steps > c.SeqLen || s.promptLen > c.SeqLen {
		return cli.Usagef("-steps = %d and -prompt = %d must fit the model's context of %d tokens", s.steps, s.promptLen, c.SeqLen)
	}
	var draft *engine.Model
	switch {
	case s.draftLayers > 0:
		if draft, err = firstLayers(m, s.draftLayers); err != nil {
			return cli.UsageError{Msg: err.Error()}
		}
	case s.draftPath != "":
		if draft, err = engine.LoadModel(s.draftPath); err != nil {
			return err
		}
		if draft.Config.VocabSize != c.VocabSize {
			return fmt.Errorf("-draft = %s: its vocabulary has %d tokens but the model's has %d", s.draftPath, draft.Config.VocabSize, c.VocabSize)
		}
	}
	fmt.Fprintf(stdout, "model     %s\nshape     %v\nweights   %.2fM parameters, %.1f MB\ncores     GOMAXPROCS=%d\n\n",
		m.Name, c, float64(c.NumParams())/1e6, float64(c.NumParams())*4/1e6, runtime.GOMAXPROCS(0))

	// Decode: greedy from BOS, one position at a time, as llama2.c's run.c
	// does with -t 0 -n steps.
	decodeFrom := func(st *engine.State) error {
		token := 1
		for pos := range s.steps {
			logits, err := st.Forward(token, pos)
			if err != nil {
				return err
			}
			token = engine.Argmax(logits)
		}
		return nil
	}
	decode, err := best(s.runs, func() (time.Duration, error) {
		st := m.NewState()
		if err := st.Reserve(s.steps); err != nil {
			return 0, err
		}
		start := time.Now()
		err := decodeFrom(st)
		return time.Since(start), err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "decode    %d positions  %8.1f ms  %9.1f tok/s\n", s.steps, ms(decode), float64(s.steps)/decode.Seconds())

	// Prefill: the same random prompt batched, then token by token.
	r := rand.New(rand.NewPCG(s.seed, 2))
	prompt := make([]int, s.promptLen)
	for i := range prompt {
		prompt[i] = r.IntN(c.VocabSize)
	}
	prompt[0] = 1
	batched, err := best(s.runs, func() (time.Duration, error) {
		st := m.NewState()
		start := time.Now()
		_, err := st.Prefill(prompt, 0)
		return time.Since(start), err
	})
	if err != nil {
		return err
	}
	sequential, err := best(s.runs, func() (time.Duration, error) {
		st := m.NewState()
		start := time.Now()
		for pos, id := range prompt {
			if _, err := st.Forward(id, pos); err != nil {
				return 0, err
			}
		}
		return time.Since(start), nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "prefill   %d tokens batched     %8.1f ms  %9.1f tok/s\n", len(prompt), ms(batched), float64(len(prompt))/batched.Seconds())
	fmt.Fprintf(stdout, "prefill   %d tokens one by one  %8.1f ms  %9.1f tok/s  (batched is %.1fx faster)\n\n",
		len(prompt), ms(sequential), float64(len(prompt))/sequential.Seconds(), sequential.Seconds()/batched.Seconds())

	// Where the time goes.
	var decodeProfile engine.Profile
	st := m.NewState()
	st.Profile = &decodeProfile
	if err := decodeFrom(st); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "decode, per part (%d positions; timing every part slows the pass a little):\n", s.steps)
	decodeProfile.WriteTable(stdout)
	var prefillProfile engine.Profile
	pst := m.NewState()
	pst.Profile = &prefillProfile
	if _, err := pst.Prefill(prompt, 0); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nprefill, per part (%d tokens in one pass):\n", len(prompt))
	prefillProfile.WriteTable(stdout)

	// The KV cache: the formula for the whole context, and what the
	// decoding state, which grows its cache with the sequence, holds.
	full := engine.KVCacheBytes(c, c.SeqLen)
	fmt.Fprintf(stdout, "\nKV cache  formula 2 × %d layers × %d kv_heads × %d head_size × %d positions × 4 B = %d B (%.2f MB) for the whole context\n",
		c.NLayers, c.NKVHeads, c.HeadSize(), c.SeqLen, full, float64(full)/1e6)
	fmt.Fprintf(stdout, "          after %d positions the state's cache holds %d B: room for %d positions, %d B by the formula\n",
		s.steps, st.Cache.Bytes(), st.Cache.Capacity(), engine.KVCacheBytes(c, st.Cache.Capacity()))

	if s.noCache > 0 {
		n := min(s.noCache, c.SeqLen-1)
		gen := func(lm engine.LM) func() (time.Duration, error) {
			return func() (time.Duration, error) {
				start := time.Now()
				for _, err := range engine.SampleLoop(lm, []int{1}, n, engine.Argmax, nil) {
					if err != nil {
						return 0, err
					}
				}
				return time.Since(start), nil
			}
		}
		with, err := best(s.runs, gen(engine.NewModelLM(m, 1)))
		if err != nil {
			return err
		}
		nc := engine.NewNoCacheLM(m)
		var scratch uint64
		without, err := best(s.runs, func() (d time.Duration, err error) {
			scratch = engine.AllocatedBytes(func() { nc = engine.NewNoCacheLM(m); d, err = gen(nc)() })
			return d, err
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "no cache  %d tokens: with cache %.1f ms, without %.1f ms (%.1fx slower; %d positions computed instead of %d; %d B allocated without cache)\n",
			n, ms(with), ms(without), without.Seconds()/with.Seconds(), nc.Positions, n, scratch)
	}

	if draft != nil {
		n := s.steps - 1
		plain, err := best(s.runs, gen1(m, n))
		if err != nil {
			return err
		}
		var stats engine.SpeculativeStats
		spec, err := best(s.runs, func() (time.Duration, error) {
			start := time.Now()
			var err error
			stats, err = engine.Speculative(engine.NewModelLM(m, 1), engine.NewModelLM(draft, 1), []int{1},
				engine.SpeculativeOptions{Gamma: s.gamma, MaxNewTokens: n}, nil)
			return time.Since(start), err
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "speculative  γ=%d draft %s: %d tokens, acceptance %.2f, %.2f tokens per target pass, %.1f ms vs %.1f ms plain: %.2fx speed-up\n",
			s.gamma, draft.Name, len(stats.Tokens), stats.AcceptanceRate(), stats.TokensPerTargetPass(), ms(spec), ms(plain), plain.Seconds()/spec.Seconds())
	}
	return nil
}

// gen1 times greedy generation of n tokens with the KV cache.
func gen1(m *engine.Model, n int) func() (time.Duration, error) {
	return func() (time.Duration, error) {
		start := time.Now()
		for _, err := range engine.SampleLoop(engine.NewModelLM(m, 1), []int{1}, n, engine.Argmax, nil) {
			if err != nil {
				return 0, err
			}
		}
		return time.Since(start), nil
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

// best runs f n times and returns the shortest time, or the first error.
func best(n int, f func() (time.Duration, error)) (time.Duration, error) {
	b, err := f()
	for range n - 1 {
		if err != nil {
			return 0, err
		}
		var d time.Duration
		d, err = f()
		b = min(b, d)
	}
	return b, err
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

// writeRandom writes a model of the given shape with random weights (and,
// if tokPath is set, a tokenizer with as many tokens: the llama2.c special
// tokens, the 256 byte tokens, then made-up pieces).
func writeRandom(modelPath, tokPath string, c engine.Config, seed uint64, stdout io.Writer) error {
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
	fmt.Fprintf(stdout, "wrote %s: %v, %.2fM parameters\n", modelPath, c, float64(c.NumParams())/1e6)
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
	fmt.Fprintf(stdout, "wrote %s: %d tokens\n", tokPath, tok.VocabSize())
	return nil
}

// minTokenizerVocab is the smallest vocabulary a random tokenizer can
// have: the three special tokens and the 256 byte tokens.
const minTokenizerVocab = 3 + 256
