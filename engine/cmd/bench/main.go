package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/gguf"
	"github.com/tokenbytoken/course/engine/internal/cli"
	"github.com/tokenbytoken/course/engine/models"
)

func main() { os.Exit(status(os.Args[1:], os.Stdout, os.Stderr)) }

// status runs the command and returns its exit status.
func status(args []string, stdout, stderr io.Writer) int {
	return cli.Status("bench", stderr, nil, func() error { return run(args, stdout, stderr) })
}

// settings are the command-line flags.
type settings struct {
	modelPath, draftPath, makeModel, makeTok string
	tokPath                                  string
	shapeFlag                                string
	steps, promptLen, runs, noCache, gamma   int
	draftLayers, threads                     int
	jsonOut, untilBOS                        bool
	seed                                     uint64
	shape                                    engine.Config
}

// measureFlags and makeFlags belong to one of the two things bench does.
var (
	measureFlags = []string{"steps", "prompt", "runs", "no-cache", "draft", "speculate", "draft-layers", "threads", "json", "shape", "tokenizer", "until-bos"}
	makeFlags    = []string{"make-tokenizer", "dim", "hidden", "layers", "heads", "kv-heads", "vocab", "seq-len"}
)

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var s settings
	fs.StringVar(&s.modelPath, "model", "", `model to measure: a llama2.c checkpoint or a GGUF file, or "smollm2" (SmolLM2-135M-Instruct, installed by make install)`)
	fs.StringVar(&s.tokPath, "tokenizer", "", "the tokenizer of a llama2.c checkpoint, for the Generate row (default: tokenizer.bin beside it, if there is one; else one is made up)")
	fs.StringVar(&s.shapeFlag, "shape", "", "measure random weights of this shape instead of a file: dim,hidden,layers,heads,kv_heads,vocab,seq_len")
	fs.IntVar(&s.steps, "steps", 256, "positions to decode, starting from BOS (like llama2.c's -n)")
	fs.BoolVar(&s.untilBOS, "until-bos", false, "end the decode when the model's greedy choice is BOS (token 1), as llama2.c's run.c does; -steps is then the most positions")
	fs.IntVar(&s.promptLen, "prompt", 128, "prompt length in tokens for the prefill measurement")
	fs.IntVar(&s.runs, "runs", 5, "timed repetitions of each measurement, after one warm-up; the median is printed")
	fs.IntVar(&s.threads, "threads", 0, "cores Go may use (GOMAXPROCS), 1 up to the machine's CPUs; left out, all of them")
	fs.BoolVar(&s.jsonOut, "json", false, "print the figures as one JSON object")
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
		if err := cli.OnlyWith(set, "when measuring a model (-model or -shape)", measureFlags...); err != nil {
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
	switch {
	case set["model"] && set["shape"]:
		return cli.Usagef("-model measures a file and -shape random weights: use one at a time")
	case set["shape"]:
		c, err := parseShape(s.shapeFlag)
		if err != nil {
			return err
		}
		s.shape = c
	case s.modelPath == "":
		return cli.Usagef("-model is required (or -shape to measure random weights, or -make-model to write them)")
	}
	if set["tokenizer"] && s.modelPath == "" {
		return cli.Usagef("-tokenizer = %q goes with a llama2.c checkpoint (-model); -shape measures random weights with a made-up tokenizer", s.tokPath)
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
	if set["threads"] && s.threads < 1 {
		return cli.Usagef("-threads = %d: must be at least 1 (leave the flag out to use every core)", s.threads)
	}
	if cpus := runtime.NumCPU(); s.threads > cpus {
		// More threads than CPUs only take turns on them, and Go itself
		// slows to a crawl with many thousands.
		return cli.Usagef("-threads = %d: this machine has %d CPUs, so at most %d", s.threads, cpus, cpus)
	}
	if s.draftPath != "" && s.draftLayers > 0 {
		return cli.Usagef("-draft and -draft-layers are two drafts: use one at a time")
	}
	if set["speculate"] && s.draftPath == "" && s.draftLayers == 0 {
		return cli.Usagef("-speculate = %d needs a draft: -draft PATH or -draft-layers N", s.gamma)
	}
	if s.threads > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(s.threads))
	}
	return measure(s, stdout)
}

// parseShape reads -shape: seven positive integers separated by commas.
func parseShape(v string) (engine.Config, error) {
	fields := strings.Split(v, ",")
	if len(fields) != 7 {
		return engine.Config{}, cli.Usagef("-shape = %q: want 7 numbers, dim,hidden,layers,heads,kv_heads,vocab,seq_len (for example 288,768,6,6,6,32000,256)", v)
	}
	var n [7]int
	for i, f := range fields {
		x, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return engine.Config{}, cli.Usagef("-shape = %q: %q is not a whole number", v, f)
		}
		n[i] = x
	}
	c := engine.Config{Dim: n[0], HiddenDim: n[1], NLayers: n[2], NHeads: n[3], NKVHeads: n[4], VocabSize: n[5], SeqLen: n[6], SharedClassifier: true}
	if err := c.Validate(); err != nil {
		return engine.Config{}, cli.Usagef("-shape: %v", err)
	}
	return c, nil
}

// timing is the spread of one measurement's repetitions.
type timing struct {
	Tokens   int     `json:"tokens"`
	MedianMS float64 `json:"median_ms"`
	MinMS    float64 `json:"min_ms"`
	MaxMS    float64 `json:"max_ms"`
	TokPerS  float64 `json:"tok_per_s"` // tokens / median
}

// ratios is the spread of a ratio measured once per round.
type ratios struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// noCacheReport is the decode of the same tokens with and without the KV
// cache (-no-cache).
type noCacheReport struct {
	Tokens         int     `json:"tokens"`
	WithMS         float64 `json:"with_cache_median_ms"`
	WithoutMS      float64 `json:"without_cache_median_ms"`
	Positions      int64   `json:"positions_without_cache"`
	AllocatedBytes uint64  `json:"allocated_bytes_without_cache"`
}

// speculativeReport is speculative decoding with a draft model (-speculate)
// against the target alone.
type speculativeReport struct {
	Draft         string  `json:"draft"`
	Gamma         int     `json:"gamma"`
	Tokens        int     `json:"tokens"`
	Acceptance    float64 `json:"acceptance"`
	TokensPerPass float64 `json:"tokens_per_target_pass"`
	MedianMS      float64 `json:"median_ms"`
	PlainMedianMS float64 `json:"plain_median_ms"`
	SpeedUp       float64 `json:"speed_up"`
}

// partShare is one row of a profile.
type partShare struct {
	Part       string  `json:"part"`
	Share      float64 `json:"share"` // of the total time, 0..1
	USPerToken float64 `json:"us_per_token"`
}

// report holds every figure bench prints.
type report struct {
	Model       string  `json:"model"`
	Shape       shape   `json:"shape"`
	Params      int64   `json:"params"`
	WeightBytes int64   `json:"weight_bytes"`
	Threads     int     `json:"threads"`
	CPUs        int     `json:"cpus"`
	Runs        int     `json:"runs"`
	LoadMS      float64 `json:"load_ms"`
	Loaded      string  `json:"loaded"` // "file" or "random"
	// Resident memory, from /proc/self/status (0 where unknown): after
	// the load, and the peak of the whole run.
	RSSAfterLoad int64 `json:"rss_after_load_bytes"`
	PeakRSS      int64 `json:"peak_rss_bytes"`

	Decode timing `json:"decode"`
	// UntilBOS says that the decode ended where the model chose BOS
	// (-until-bos), before -steps positions.
	UntilBOS bool `json:"decode_ended_at_bos,omitempty"`
	// Generate is the same greedy decode through decoding.Generate, with
	// the tokenizer Tokenizer names, and GenerateVsDecode its rate over
	// Decode's, round by round (nil when no tokenizer fits the model:
	// a vocabulary too small for BOS and EOS, or one that makes no
	// one-token prompt).
	Generate          *timing            `json:"generate,omitempty"`
	GenerateVsDecode  *ratios            `json:"generate_vs_decode,omitempty"`
	Tokenizer         string             `json:"tokenizer,omitempty"`
	EndsBanned        bool               `json:"generate_ends_banned,omitempty"` // the model ended its text early, so Generate banned its end tokens
	PrefillBatched    timing             `json:"prefill_batched"`
	PrefillSequential timing             `json:"prefill_sequential"`
	DecodeParts       []partShare        `json:"decode_parts"`
	PrefillParts      []partShare        `json:"prefill_parts"`
	KVCacheFullBytes  int64              `json:"kv_cache_full_context_bytes"`
	KVCacheBytes      int64              `json:"kv_cache_bytes_after_decode"`
	NoCache           *noCacheReport     `json:"no_cache,omitempty"`
	Speculative       *speculativeReport `json:"speculative,omitempty"`

	decodeProfile, prefillProfile engine.Profile
	cacheCapacity                 int
	config                        engine.Config
}

type shape struct {
	Dim       int  `json:"dim"`
	Hidden    int  `json:"hidden"`
	Layers    int  `json:"layers"`
	Heads     int  `json:"heads"`
	KVHeads   int  `json:"kv_heads"`
	Vocab     int  `json:"vocab"`
	SeqLen    int  `json:"seq_len"`
	SharedCls bool `json:"shared_classifier"`
}

// load reads the model of -model, or makes the random one of -shape, and
// reports how long it took.
func load(s settings) (*engine.Model, time.Duration, error) {
	start := time.Now()
	if s.modelPath != "" {
		path := s.modelPath
		if path == "smollm2" {
			p, err := models.SmolLM2Path()
			if err != nil {
				return nil, 0, err
			}
			path = p
		}
		m, err := engine.LoadModel(path)
		return m, time.Since(start), err
	}
	m, err := randomModel(s.shape, s.seed)
	return m, time.Since(start), err
}

// measure prints the speed figures of a model.
func measure(s settings, stdout io.Writer) error {
	m, loadTime, err := load(s)
	if err != nil {
		return err
	}
	c := m.Config
	if s.steps > c.SeqLen || s.promptLen > c.SeqLen {
		return cli.Usagef("-steps = %d and -prompt = %d must fit the model's context of %d tokens", s.steps, s.promptLen, c.SeqLen)
	}
	rep := &report{Model: m.Name, Params: c.NumParams(), WeightBytes: m.WeightBytes(),
		Threads: runtime.GOMAXPROCS(0), CPUs: runtime.NumCPU(), Runs: s.runs, LoadMS: ms(loadTime), Loaded: "file",
		Shape: shape{c.Dim, c.HiddenDim, c.NLayers, c.NHeads, c.NKVHeads, c.VocabSize, c.SeqLen, c.SharedClassifier}, config: c}
	if s.modelPath == "" {
		rep.Model, rep.Loaded = fmt.Sprintf("random weights, seed %d", s.seed), "random"
	}
	rep.RSSAfterLoad, _ = residentMemory()
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

	// Decode: greedy from BOS, one position at a time (greedyDecode).
	decodeFrom := func(st *engine.State) error {
		_, err := greedyDecode(st, s.steps, false)
		return err
	}
	if s.untilBOS {
		// Greedy decoding gives the same tokens every time: one run
		// finds where the model chooses BOS, and every timed run (the
		// Generate row's too) runs that many positions.
		st := m.NewState()
		if err := st.Reserve(s.steps); err != nil {
			return err
		}
		n, err := greedyDecode(st, s.steps, true)
		if err != nil {
			return err
		}
		s.steps, rep.UntilBOS = n, n < s.steps
	}
	decode := func() (time.Duration, error) {
		st := m.NewState()
		if err := st.Reserve(s.steps); err != nil {
			return 0, err
		}
		start := time.Now()
		err := decodeFrom(st)
		return time.Since(start), err
	}
	// The decode again, as the generate command runs it: Generate's loop,
	// with its sampler, log-probabilities and text. The runs of the two
	// alternate, so that the machine's load moves both alike and each
	// round's ratio compares like with like.
	var gen func() (time.Duration, error)
	tok, from, err := tokenizer(s, m)
	if err != nil {
		return err
	}
	if tok != nil {
		if gen, rep.EndsBanned, err = generateFrom(m, tok, s.steps); err != nil {
			return err
		}
	}
	if gen == nil {
		if rep.Decode, err = timed(s.runs, s.steps, decode); err != nil {
			return err
		}
	} else {
		t, r, err := interleaved(s.runs, s.steps, decode, gen)
		if err != nil {
			return err
		}
		rep.Decode, rep.Generate, rep.Tokenizer = t[0], &t[1], from
		rep.GenerateVsDecode = &r
	}

	// Prefill: the same random prompt batched, then token by token.
	r := rand.New(rand.NewPCG(s.seed, 2))
	prompt := make([]int, s.promptLen)
	for i := range prompt {
		prompt[i] = r.IntN(c.VocabSize)
	}
	prompt[0] = 1
	if rep.PrefillBatched, err = timed(s.runs, len(prompt), func() (time.Duration, error) {
		st := m.NewState()
		start := time.Now()
		_, err := st.Prefill(prompt, 0)
		return time.Since(start), err
	}); err != nil {
		return err
	}
	if rep.PrefillSequential, err = timed(s.runs, len(prompt), func() (time.Duration, error) {
		st := m.NewState()
		start := time.Now()
		for pos, id := range prompt {
			if _, err := st.Forward(id, pos); err != nil {
				return 0, err
			}
		}
		return time.Since(start), nil
	}); err != nil {
		return err
	}

	// Where the time goes.
	st := m.NewState()
	st.Profile = &rep.decodeProfile
	if err := decodeFrom(st); err != nil {
		return err
	}
	pst := m.NewState()
	pst.Profile = &rep.prefillProfile
	if _, err := pst.Prefill(prompt, 0); err != nil {
		return err
	}
	rep.DecodeParts, rep.PrefillParts = shares(&rep.decodeProfile), shares(&rep.prefillProfile)

	// The KV cache: the formula for the whole context, and what the
	// decoding state, which grows its cache with the sequence, holds.
	rep.KVCacheFullBytes, rep.KVCacheBytes, rep.cacheCapacity = m.KVCacheBytes(c.SeqLen), st.Cache.Bytes(), st.Cache.Capacity()

	if s.noCache > 0 {
		n := min(s.noCache, c.SeqLen-1)
		gen := func(lm decoding.LM) func() (time.Duration, error) {
			return func() (time.Duration, error) {
				start := time.Now()
				for _, err := range decoding.Decode(context.Background(), lm, []int{1}, decoding.Options{MaxNewTokens: n}) {
					if err != nil {
						return 0, err
					}
				}
				return time.Since(start), nil
			}
		}
		with, err := timed(s.runs, n, gen(engine.NewModelLM(m, 1)))
		if err != nil {
			return err
		}
		nc := engine.NewNoCacheLM(m)
		var scratch uint64
		without, err := timed(s.runs, n, func() (d time.Duration, err error) {
			scratch = engine.AllocatedBytes(func() { nc = engine.NewNoCacheLM(m); d, err = gen(nc)() })
			return d, err
		})
		if err != nil {
			return err
		}
		rep.NoCache = &noCacheReport{n, with.MedianMS, without.MedianMS, nc.Positions, scratch}
	}

	if draft != nil {
		n := s.steps - 1
		plain, err := timed(s.runs, n, gen1(m, n))
		if err != nil {
			return err
		}
		var stats decoding.SpeculativeStats
		spec, err := timed(s.runs, n, func() (time.Duration, error) {
			start := time.Now()
			for step, err := range decoding.Decode(context.Background(), engine.NewModelLM(m, 1), []int{1},
				decoding.Options{MaxNewTokens: n, Decoder: decoding.Speculation{Drafter: decoding.DraftLM{LM: engine.NewModelLM(draft, 1)}, Gamma: s.gamma}}) {
				if err != nil {
					return 0, err
				}
				if step.Stats != nil {
					stats = *step.Stats.Report.(*decoding.SpeculativeStats)
				}
			}
			return time.Since(start), nil
		})
		if err != nil {
			return err
		}
		rep.Speculative = &speculativeReport{draft.Name, s.gamma, len(stats.Tokens), stats.AcceptanceRate(), stats.TokensPerTargetPass(), spec.MedianMS, plain.MedianMS, plain.MedianMS / spec.MedianMS}
	}
	_, rep.PeakRSS = residentMemory()
	if s.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.writeText(stdout)
}

// writeText prints the report as tables.
func (rep *report) writeText(w io.Writer) error {
	c := rep.config
	fmt.Fprintf(w, "model     %s\nshape     %v\nweights   %.2fM parameters, %.1f MB\ncores     %d threads (GOMAXPROCS) of %d CPUs\n",
		rep.Model, c, float64(rep.Params)/1e6, float64(rep.WeightBytes)/1e6, rep.Threads, rep.CPUs)
	verb := "loaded"
	if rep.Loaded == "random" {
		verb = "made"
	}
	fmt.Fprintf(w, "load      %s in %.1f ms", verb, rep.LoadMS)
	if rep.RSSAfterLoad > 0 {
		fmt.Fprintf(w, "; resident %.1f MB after it, %.1f MB at the peak of the run", float64(rep.RSSAfterLoad)/1e6, float64(rep.PeakRSS)/1e6)
	}
	fmt.Fprintf(w, "\ntimings   median of %d runs after a warm-up (fastest–slowest)\n\n", rep.Runs)
	line := func(what string, t timing, extra string) {
		fmt.Fprintf(w, "%s  %8.1f ms  %9.1f tok/s  (%.1f–%.1f ms)%s\n", what, t.MedianMS, t.TokPerS, t.MinMS, t.MaxMS, extra)
	}
	bos := ""
	if rep.UntilBOS {
		bos = "  (ended where the model chose BOS: -until-bos)"
	}
	line(fmt.Sprintf("decode    %d positions          ", rep.Decode.Tokens), rep.Decode, bos)
	if g := rep.Generate; g != nil {
		r := rep.GenerateVsDecode
		line(fmt.Sprintf("Generate  %d positions          ", g.Tokens), *g,
			fmt.Sprintf("  %.3f of decode's rate (rounds %.3f–%.3f)", r.Median, r.Min, r.Max))
		ban := ""
		if rep.EndsBanned {
			ban = ", end tokens banned (the text ended early)"
		}
		fmt.Fprintf(w, "          Generate: greedy from a one-token prompt%s; tokenizer %s\n", ban, rep.Tokenizer)
	}
	line(fmt.Sprintf("prefill   %d tokens batched     ", rep.PrefillBatched.Tokens), rep.PrefillBatched, "")
	line(fmt.Sprintf("prefill   %d tokens one by one  ", rep.PrefillSequential.Tokens), rep.PrefillSequential,
		fmt.Sprintf("  batched is %.1fx faster", rep.PrefillSequential.MedianMS/rep.PrefillBatched.MedianMS))

	fmt.Fprintf(w, "\ndecode, per part (%d positions; timing every part slows the pass a little):\n", rep.Decode.Tokens)
	rep.decodeProfile.WriteTable(w)
	fmt.Fprintf(w, "\nprefill, per part (%d tokens in one pass):\n", rep.PrefillBatched.Tokens)
	rep.prefillProfile.WriteTable(w)

	perPosition := rep.KVCacheFullBytes / int64(c.SeqLen)
	perValue := perPosition / int64(2*c.NLayers*c.NKVHeads*c.HeadSize()) // 4 (float32) or 2 (f16, as llama.cpp keeps a GGUF model's cache)
	fmt.Fprintf(w, "\nKV cache  formula 2 × %d layers × %d kv_heads × %d head_size × %d positions × %d B = %d B (%.2f MB) for the whole context\n",
		c.NLayers, c.NKVHeads, c.HeadSize(), c.SeqLen, perValue, rep.KVCacheFullBytes, float64(rep.KVCacheFullBytes)/1e6)
	fmt.Fprintf(w, "          after %d positions the state's cache holds %d B: room for %d positions, %d B by the formula\n",
		rep.Decode.Tokens, rep.KVCacheBytes, rep.cacheCapacity, perPosition*int64(rep.cacheCapacity))
	if nc := rep.NoCache; nc != nil {
		fmt.Fprintf(w, "no cache  %d tokens: with cache %.1f ms, without %.1f ms (%.1fx slower; %d positions computed instead of %d; %d B allocated without cache)\n",
			nc.Tokens, nc.WithMS, nc.WithoutMS, nc.WithoutMS/nc.WithMS, nc.Positions, nc.Tokens, nc.AllocatedBytes)
	}
	if sp := rep.Speculative; sp != nil {
		fmt.Fprintf(w, "speculative  γ=%d draft %s: %d tokens, acceptance %.2f, %.2f tokens per target pass, %.1f ms vs %.1f ms plain: %.2fx speed-up\n",
			sp.Gamma, sp.Draft, sp.Tokens, sp.Acceptance, sp.TokensPerPass, sp.MedianMS, sp.PlainMedianMS, sp.SpeedUp)
	}
	return nil
}

// shares is a profile's time per part, as fractions of the total.
func shares(p *engine.Profile) []partShare {
	total := p.Total().Time
	n := float64(max(p.Tokens, 1))
	var out []partShare
	for part, c := range p.Parts {
		sh := 0.0
		if total > 0 {
			sh = float64(c.Time) / float64(total)
		}
		out = append(out, partShare{engine.Part(part).String(), sh, float64(c.Time.Nanoseconds()) / 1e3 / n})
	}
	return out
}

// randomModel makes a model of shape c with random weights in memory (the
// weights writeRandom saves), refusing one that does not fit in memory.
func randomModel(c engine.Config, seed uint64) (*engine.Model, error) {
	r := rand.New(rand.NewPCG(seed, 1))
	w, err := engine.NewWeights(c)
	if err != nil {
		return nil, err
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
	m, err := engine.NewModel(c, w)
	if err != nil {
		return nil, err
	}
	m.Name = "random"
	return m, nil
}

// timed runs f once to warm up, then n times, and returns the median, the
// fastest and the slowest of the n, or the first error. tokens is the work
// of one run, for the rate.
func timed(n, tokens int, f func() (time.Duration, error)) (timing, error) {
	if _, err := f(); err != nil {
		return timing{}, err
	}
	d := make([]time.Duration, n)
	for i := range d {
		var err error
		if d[i], err = f(); err != nil {
			return timing{}, err
		}
	}
	return spread(d, tokens), nil
}

// spread is the median, fastest and slowest of the times of n runs of
// tokens each.
func spread(d []time.Duration, tokens int) timing {
	d = slices.Sorted(slices.Values(d))
	med := median(d)
	return timing{Tokens: tokens, MedianMS: ms(med), MinMS: ms(d[0]), MaxMS: ms(d[len(d)-1]),
		TokPerS: float64(tokens) / med.Seconds()}
}

// interleaved runs each of fs once to warm up, then n rounds of each in
// turn, and returns the spread of each one's times, and of the ratio of
// the first one's time to the second's in the same round: the second's
// rate over the first's. tokens is the work of one run, for the rate.
func interleaved(n, tokens int, fs ...func() (time.Duration, error)) ([]timing, ratios, error) {
	d := make([][]time.Duration, len(fs))
	for i, f := range fs {
		if _, err := f(); err != nil {
			return nil, ratios{}, err
		}
		d[i] = make([]time.Duration, n)
	}
	for r := range n {
		for i, f := range fs {
			var err error
			if d[i][r], err = f(); err != nil {
				return nil, ratios{}, err
			}
		}
	}
	var rr []float64
	if len(fs) > 1 {
		for r := range n {
			rr = append(rr, float64(d[0][r])/float64(d[1][r]))
		}
	}
	t := make([]timing, len(fs))
	for i := range fs {
		t[i] = spread(d[i], tokens)
	}
	if len(rr) == 0 {
		return t, ratios{}, nil
	}
	slices.Sort(rr)
	return t, ratios{Median: median(rr), Min: rr[0], Max: rr[len(rr)-1]}, nil
}

// median is the middle of sorted numbers (the mean of the two middle ones
// for an even count).
func median[T time.Duration | float64](x []T) T {
	n := len(x)
	if n%2 == 0 {
		return (x[n/2-1] + x[n/2]) / 2
	}
	return x[n/2]
}

// greedyDecode runs st greedily from BOS (token 1) for at most steps
// positions, each followed by the argmax of its logits, as llama2.c's
// run.c does with -t 0 -n steps, and returns the positions run. With
// untilBOS it stops, as run.c does, after the position whose argmax is
// BOS again.
func greedyDecode(st *engine.State, steps int, untilBOS bool) (int, error) {
	token := 1
	for pos := range steps {
		logits, err := st.Forward(token, pos)
		if err != nil {
			return pos, err
		}
		if token = decoding.Argmax(logits); untilBOS && token == 1 {
			return pos + 1, nil
		}
	}
	return steps, nil
}

// generateFrom times decoding.Generate decoding positions positions greedily
// from the shortest prompt the tokenizer makes (BOS, or one token where it
// adds none), as the decode row does from BOS: the prompt's one position,
// then a token per position, the last one never run. When the model ends
// its text before that, its end tokens are banned (a logit bias of -Inf,
// one more stage of the sampler), so that every position runs; banned
// says whether they are. A tokenizer that makes no one-token prompt gives
// no run (nil).
func generateFrom(m *engine.Model, tok *engine.Tokenizer, positions int) (run func() (time.Duration, error), banned bool, err error) {
	prompt, ok := "", false
	for _, p := range []string{"", "\n", " ", "a"} {
		if ids, err := tok.Encode(p, true, false); err == nil && len(ids) == 1 {
			prompt, ok = p, true
			break
		}
	}
	if !ok {
		return nil, false, nil
	}
	opts := decoding.Options{MaxNewTokens: positions}
	// The time is the steps' own, as Stats counts it and the generate
	// command reports it: the prompt's pass and the decode, without
	// Generate's checks and its state's allocation, which the decode row
	// leaves out too.
	count := func() (int, time.Duration, error) {
		for step, err := range decoding.Generate(context.Background(), m, tok, prompt, opts) {
			if err != nil {
				return 0, 0, err
			}
			if st := step.Stats; st != nil && step.Finish != "" {
				return st.GeneratedTokens, st.Prefill + st.Decode, nil
			}
		}
		return 0, 0, errors.New("Generate ended without a last step")
	}
	// Greedy decoding gives the same text every time: one run says
	// whether it ends early.
	n, _, err := count()
	if err != nil {
		return nil, false, err
	}
	if n < positions {
		opts.LogitBias = map[int]float32{}
		for id := range tok.VocabSize() {
			if tok.IsEnd(id) {
				opts.LogitBias[id] = float32(math.Inf(-1))
			}
		}
		banned = true
	}
	return func() (time.Duration, error) {
		n, d, err := count()
		if err != nil {
			return 0, err
		}
		if n != positions {
			return 0, fmt.Errorf("Generate made %d tokens, not the %d asked for", n, positions)
		}
		return d, nil
	}, banned, nil
}

// tokenizer returns the tokenizer of the Generate row and says where it
// comes from: a GGUF file's own; -tokenizer, or the tokenizer.bin beside a
// llama2.c checkpoint; or else one made up for the model's vocabulary
// (decoding its pieces costs what decoding real ones does). It returns
// nil for a vocabulary too small to hold BOS and EOS.
func tokenizer(s settings, m *engine.Model) (*engine.Tokenizer, string, error) {
	path := s.modelPath
	if path == "smollm2" {
		p, err := models.SmolLM2Path()
		if err != nil {
			return nil, "", err
		}
		path = p
	}
	if path != "" && gguf.HasMagic(path) {
		if s.tokPath != "" {
			return nil, "", cli.Usagef("-tokenizer = %q: %s is a GGUF file, which holds its own tokenizer", s.tokPath, s.modelPath)
		}
		f, err := gguf.Open(path)
		if err != nil {
			return nil, "", err
		}
		defer f.Close()
		tok, err := engine.TokenizerFromGGUF(f)
		if err != nil {
			return nil, "", fmt.Errorf("model %s: tokenizer: %w", path, err)
		}
		return tok, "the model's file's", nil
	}
	tp := s.tokPath
	if tp == "" && path != "" {
		if beside := filepath.Join(filepath.Dir(path), "tokenizer.bin"); regularFile(beside) {
			tp = beside
		}
	}
	if tp != "" {
		tok, err := engine.LoadTokenizer(tp, m.Config.VocabSize)
		if err != nil {
			return nil, "", fmt.Errorf("-tokenizer = %s: %w", tp, err)
		}
		return tok, tp, nil
	}
	if m.Config.VocabSize < 3 {
		return nil, "", nil
	}
	tok, err := madeUpTokenizer(m.Config.VocabSize)
	if err != nil {
		return nil, "", err
	}
	return tok, fmt.Sprintf("made up, %d tokens", m.Config.VocabSize), nil
}

// regularFile reports whether path names a regular file.
func regularFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// gen1 times greedy generation of n tokens with the KV cache.
func gen1(m *engine.Model, n int) func() (time.Duration, error) {
	return func() (time.Duration, error) {
		start := time.Now()
		for _, err := range decoding.Decode(context.Background(), engine.NewModelLM(m, 1), []int{1}, decoding.Options{MaxNewTokens: n}) {
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
	mats := *m.Matrices
	mats.Layers = mats.Layers[:n]
	return &engine.Model{Config: d, Matrices: &mats, Name: fmt.Sprintf("first %d of %d layers of %s", n, c.NLayers, m.Name)}, nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// writeRandom writes a model of the given shape with random weights (and,
// if tokPath is set, a tokenizer with as many tokens: the llama2.c special
// tokens, the 256 byte tokens, then made-up pieces).
func writeRandom(modelPath, tokPath string, c engine.Config, seed uint64, stdout io.Writer) error {
	m, err := randomModel(c, seed)
	if err != nil {
		return err
	}
	if err := m.Save(modelPath); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %v, %.2fM parameters\n", modelPath, c, float64(c.NumParams())/1e6)
	if tokPath == "" {
		return nil
	}
	tok, err := madeUpTokenizer(c.VocabSize)
	if err != nil {
		return err
	}
	if err := tok.Save(tokPath); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d tokens\n", tokPath, tok.VocabSize())
	return nil
}

// madeUpTokenizer is a tokenizer of vocab tokens (at least 3): llama2.c's
// special tokens, the 256 byte tokens as far as they fit, then made-up
// pieces " w<id>", each scored below the one before.
func madeUpTokenizer(vocab int) (*engine.Tokenizer, error) {
	pieces := []string{"<unk>", "<s>", "</s>"}
	for b := 0; b < 256 && len(pieces) < vocab; b++ {
		pieces = append(pieces, fmt.Sprintf("<0x%02X>", b))
	}
	for i := len(pieces); i < vocab; i++ {
		pieces = append(pieces, fmt.Sprintf(" w%d", i))
	}
	pieces = pieces[:vocab]
	scores := make([]float32, len(pieces))
	for i := range scores {
		scores[i] = -float32(i)
	}
	return engine.NewTokenizer(pieces, scores, 0)
}

// minTokenizerVocab is the smallest vocabulary a random tokenizer can
// have: the three special tokens and the 256 byte tokens.
const minTokenizerVocab = 3 + 256
