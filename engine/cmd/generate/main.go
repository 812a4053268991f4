// Command generate writes text with a llama2.c model, one token at a time,
// streaming each piece as soon as it is safe to show.
//
//	go run ./engine/cmd/generate -prompt "func main() {"
//	go run ./engine/cmd/generate -model stories15M.bin -tokenizer tokenizer.bin -prompt "Once upon a time"
//
// Without -model it runs the engine's built-in model (engine.Default).
//
// Sampling: -temperature (0 is greedy), -topk, -topp, -minp, -seed;
// penalties: -repeat-penalty, -presence, -frequency, -penalty-window; stopping: -n, -stop
// (repeatable), -include-stop, -timeout. With -json it prints one JSON object per token
// (id, text, log-probability and, with -logprobs N, the N most likely
// alternatives) and a final summary (finish reason, token counts, prefill
// and decode times, tokens per second). Without -json it prints the prompt
// and the generated text, and the speed on stderr.
//
// The search and speed flags -beam, -draft, -speculate and -no-cache are
// handled in search.go.
//
// Errors go to stderr. The exit status is 1 when generation fails and 2
// when the flags are wrong.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tokenbytoken/course/engine"
)

// config holds every flag.
type config struct {
	model, tokenizer, prompt string
	maxNew                   int           // -n
	temperature, topP, minP  float64       // -temperature, -topp, -minp
	topK                     int           // -topk
	seed                     uint64        // -seed; 0 picks one from the clock
	repeatPenalty            float64       // -repeat-penalty; 1 is off
	presence, frequency      float64       // -presence, -frequency
	penaltyWindow            int           // -penalty-window
	stops                    stopList      // -stop, repeatable
	includeStop              bool          // -include-stop
	timeout                  time.Duration // -timeout; 0 is none
	logprobs                 int           // -logprobs N
	json                     bool          // -json

	// The search and speed flags, read by searchDecoder in search.go.
	beam      int    // -beam: beam width; 0 is off
	draft     string // -draft: path of a draft model for speculative decoding
	speculate int    // -speculate: tokens the draft proposes per target pass
	noCache   bool   // -no-cache: recompute every step without the KV cache
}

// stopList collects the repeatable -stop flag.
type stopList []string

func (s *stopList) String() string     { return strings.Join(*s, ",") }
func (s *stopList) Set(v string) error { *s = append(*s, v); return nil }

// decoder produces the steps of one generation, with the meaning and
// contract of engine.Generate: invalid settings are the only value yielded,
// the last step carries Finish and Stats. engine.Generate (sampling, one
// token at a time) is the default decoder; searchDecoder in search.go
// returns another one when the search and speed flags ask for it.
type decoder func(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, prompt string, opts engine.Options) iter.Seq2[engine.Step, error]

// usageError is a mistake in the flags: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the whole command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if err == nil {
		err = generate(cfg, stdout, stderr)
	}
	var usage usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &usage):
		if usage.msg != "" {
			fmt.Fprintf(stderr, "generate: %v\nRun 'generate -h' for the flags.\n", err)
		}
		return 2
	default:
		fmt.Fprintf(stderr, "generate: %v\n", err)
		return 1
	}
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	cfg := &config{}
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.model, "model", "", "llama2.c checkpoint (.bin) to run (default: the built-in model)")
	fs.StringVar(&cfg.tokenizer, "tokenizer", "", "llama2.c tokenizer.bin (default: tokenizer.bin beside the model)")
	fs.StringVar(&cfg.prompt, "prompt", "", "text to continue")
	fs.IntVar(&cfg.maxNew, "n", 256, "most tokens to generate (0: until the context is full)")
	fs.Float64Var(&cfg.temperature, "temperature", 1, "sampling temperature; 0 is greedy")
	fs.Float64Var(&cfg.topP, "topp", 0.9, "top-p (nucleus) in (0, 1]; 1 is off")
	fs.IntVar(&cfg.topK, "topk", 0, "keep only the k most likely tokens; 0 is off")
	fs.Float64Var(&cfg.minP, "minp", 0, "keep tokens with p ≥ minp × p_max; 0 is off")
	fs.Uint64Var(&cfg.seed, "seed", 0, "random seed (0: pick one from the clock; the summary reports it)")
	fs.Float64Var(&cfg.repeatPenalty, "repeat-penalty", 1, "repetition penalty (> 0; 1 is off)")
	fs.Float64Var(&cfg.presence, "presence", 0, "presence penalty, subtracted once per token already used")
	fs.Float64Var(&cfg.frequency, "frequency", 0, "frequency penalty, subtracted per use of a token")
	fs.IntVar(&cfg.penaltyWindow, "penalty-window", 0, "penalties look at the last N tokens only (0: the whole text)")
	fs.Var(&cfg.stops, "stop", "stop sequence (repeatable)")
	fs.BoolVar(&cfg.includeStop, "include-stop", false, "end the text with the stop sequence that ended it")
	fs.DurationVar(&cfg.timeout, "timeout", 0, "stop after this long, e.g. 2s (0: no limit)")
	fs.IntVar(&cfg.logprobs, "logprobs", 0, "with -json, list the N most likely tokens at every step")
	fs.BoolVar(&cfg.json, "json", false, "print one JSON object per token and a summary")
	fs.IntVar(&cfg.beam, "beam", 0, "beam search with this many beams (0: off)")
	fs.StringVar(&cfg.draft, "draft", "", "draft model for speculative decoding (\"default\": the built-in draft)")
	fs.IntVar(&cfg.speculate, "speculate", 0, "tokens the draft model proposes per step (with -draft)")
	fs.BoolVar(&cfg.noCache, "no-cache", false, "recompute the whole prefix every step, without the KV cache")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, usageError{} // the flag package has already printed the problem and the flags
	}
	if fs.NArg() > 0 {
		return nil, usagef("unexpected argument %q (the prompt goes in -prompt)", fs.Arg(0))
	}
	// Speculative sampling draws from the target's whole tempered
	// distribution, so the default nucleus does not apply to it.
	topPSet := false
	fs.Visit(func(f *flag.Flag) { topPSet = topPSet || f.Name == "topp" })
	if cfg.draft != "" && !topPSet {
		cfg.topP = 1
	}
	// In Options, 0 means "unset" for these two; on the command line it
	// can only be a mistake.
	if cfg.topP <= 0 || cfg.topP > 1 {
		return nil, usagef("-topp = %v: must be in (0, 1]; 1 is off", cfg.topP)
	}
	if cfg.repeatPenalty <= 0 {
		return nil, usagef("-repeat-penalty = %v: must be positive; 1 is off", cfg.repeatPenalty)
	}
	if err := cfg.options().Validate(0); err != nil {
		return nil, flagError(err)
	}
	return cfg, nil
}

// options turns the flags into engine options.
func (cfg *config) options() engine.Options {
	return engine.Options{
		MaxNewTokens:      cfg.maxNew,
		Temperature:       cfg.temperature,
		TopK:              cfg.topK,
		TopP:              cfg.topP,
		MinP:              cfg.minP,
		Seed:              cfg.seed,
		RepetitionPenalty: cfg.repeatPenalty,
		PresencePenalty:   cfg.presence,
		FrequencyPenalty:  cfg.frequency,
		PenaltyWindow:     cfg.penaltyWindow,
		Stop:              cfg.stops,
		IncludeStop:       cfg.includeStop,
		TopLogProbs:       cfg.logprobs,
	}
}

// flagOf names the flag behind each Options field.
var flagOf = map[string]string{
	"MaxNewTokens": "-n", "Temperature": "-temperature", "TopK": "-topk", "TopP": "-topp",
	"MinP": "-minp", "RepetitionPenalty": "-repeat-penalty", "PresencePenalty": "-presence",
	"FrequencyPenalty": "-frequency", "PenaltyWindow": "-penalty-window", "Stop": "-stop", "TopLogProbs": "-logprobs",
}

// flagError rewords an engine.SettingError in terms of the flag.
func flagError(err error) error {
	var se *engine.SettingError
	if !errors.As(err, &se) {
		return usageError{err.Error()}
	}
	name, _, _ := strings.Cut(se.Setting, "[")
	if f, ok := flagOf[name]; ok {
		return usageError{(&engine.SettingError{Setting: f, Value: se.Value, Problem: se.Problem}).Error()}
	}
	return usageError{err.Error()}
}

// generate loads the model and tokenizer, runs the decoder and prints.
func generate(cfg *config, stdout, stderr io.Writer) error {
	dec, err := searchDecoder(cfg)
	if err != nil {
		return usageError{err.Error()}
	}
	if dec == nil {
		dec = engine.Generate
	}
	m, tok, err := load(cfg)
	if err != nil {
		return err
	}
	if cfg.seed == 0 {
		cfg.seed = uint64(time.Now().UnixNano())
	}
	opts := cfg.options()

	ctx := context.Background()
	if cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.timeout)
		defer cancel()
	}

	out := bufio.NewWriter(stdout)
	defer out.Flush()
	var p printer = &textPrinter{out: out, stderr: stderr}
	if cfg.json {
		p = &jsonPrinter{enc: json.NewEncoder(out), seed: cfg.seed}
	}
	p.start(cfg.prompt)
	for step, err := range dec(ctx, m, tok, cfg.prompt, opts) {
		if err != nil {
			return err
		}
		if err := p.step(step); err != nil {
			return err
		}
		if err := out.Flush(); err != nil { // stream: show each piece now
			return err
		}
	}
	return nil
}

// load reads the model and its tokenizer. Without -model it is the
// engine's embedded default model and tokenizer.
func load(cfg *config) (*engine.Model, *engine.Tokenizer, error) {
	if cfg.model == "" || cfg.model == "default" {
		if cfg.tokenizer != "" {
			return nil, nil, usagef("-tokenizer = %q: the built-in model has its own tokenizer; give -model too", cfg.tokenizer)
		}
		return engine.Default()
	}
	return loadFiles(cfg.model, cfg.tokenizer)
}

// loadFiles reads a checkpoint and its tokenizer (tokPath, or tokenizer.bin
// beside the checkpoint when tokPath is empty).
func loadFiles(modelPath, tokPath string) (*engine.Model, *engine.Tokenizer, error) {
	m, err := engine.LoadModel(modelPath)
	if err != nil {
		return nil, nil, err
	}
	if tokPath == "" {
		tokPath = filepath.Join(filepath.Dir(modelPath), "tokenizer.bin")
		if _, err := os.Stat(tokPath); err != nil {
			return nil, nil, fmt.Errorf("no -tokenizer given and no tokenizer.bin beside the model %s: %w", modelPath, err)
		}
	}
	tok, err := engine.LoadTokenizer(tokPath, m.Config.VocabSize)
	if err != nil {
		return nil, nil, err
	}
	return m, tok, nil
}

// printer shows a generation as it happens.
type printer interface {
	start(prompt string)
	step(s engine.Step) error
}

// textPrinter streams the text to stdout, then the speed to stderr.
type textPrinter struct {
	out    *bufio.Writer
	stderr io.Writer
}

func (p *textPrinter) start(prompt string) { p.out.WriteString(prompt) }

func (p *textPrinter) step(s engine.Step) error {
	if _, err := p.out.WriteString(s.Text); err != nil {
		return err
	}
	if s.Finish == "" {
		return nil
	}
	p.out.WriteString("\n")
	if st := s.Stats; st != nil {
		fmt.Fprintf(p.stderr, "finish: %s; prompt %d tokens in %v (%.1f tok/s); generated %d tokens in %v: %.1f tok/s\n",
			s.Finish, st.PromptTokens, st.Prefill.Round(time.Microsecond), st.PrefillTokensPerSecond(),
			st.GeneratedTokens, st.Decode.Round(time.Microsecond), st.DecodeTokensPerSecond())
	}
	return nil
}

// jsonPrinter writes one object per token and a summary.
type jsonPrinter struct {
	enc    *json.Encoder
	seed   uint64
	prompt string
	text   strings.Builder
}

// tokenJSON is one generated token.
type tokenJSON struct {
	Type        string    `json:"type"` // "token"
	ID          int       `json:"id"`
	Pos         int       `json:"pos"`
	Text        string    `json:"text"`  // text released at this step (valid UTF-8; may be empty while held back)
	Bytes       []int     `json:"bytes"` // the token's raw bytes
	LogProb     float64   `json:"logprob"`
	TopLogProbs []altJSON `json:"top_logprobs,omitempty"`
}

// altJSON is one alternative at a position.
type altJSON struct {
	ID      int     `json:"id"`
	Text    string  `json:"text"`
	Bytes   []int   `json:"bytes"`
	LogProb float64 `json:"logprob"`
}

// summaryJSON ends the output.
type summaryJSON struct {
	Type                   string  `json:"type"` // "summary"
	FinishReason           string  `json:"finish_reason"`
	StopSequence           string  `json:"stop_sequence,omitempty"`
	PromptTokens           int     `json:"prompt_tokens"`
	GeneratedTokens        int     `json:"generated_tokens"`
	PrefillMS              float64 `json:"prefill_ms"`
	DecodeMS               float64 `json:"decode_ms"`
	PrefillTokensPerSecond float64 `json:"prefill_tokens_per_second"`
	DecodeTokensPerSecond  float64 `json:"decode_tokens_per_second"`
	Seed                   uint64  `json:"seed"`
	Prompt                 string  `json:"prompt"`
	Text                   string  `json:"text"` // the whole generated text
}

func (p *jsonPrinter) start(prompt string) { p.prompt = prompt }

func (p *jsonPrinter) step(s engine.Step) error {
	p.text.WriteString(s.Text)
	if s.ID != engine.NoToken {
		t := tokenJSON{Type: "token", ID: s.ID, Pos: s.Pos, Text: s.Text, Bytes: byteList(s.Piece), LogProb: s.LogProb}
		for _, a := range s.TopLogProbs {
			t.TopLogProbs = append(t.TopLogProbs, altJSON{a.ID, strings.ToValidUTF8(a.Text, "\uFFFD"), byteList(a.Text), a.LogProb})
		}
		if err := p.enc.Encode(t); err != nil {
			return err
		}
	}
	if s.Finish == "" {
		return nil
	}
	sum := summaryJSON{Type: "summary", FinishReason: string(s.Finish), Seed: p.seed, Prompt: p.prompt, Text: p.text.String()}
	if st := s.Stats; st != nil {
		sum.StopSequence = st.StopSequence
		sum.PromptTokens, sum.GeneratedTokens = st.PromptTokens, st.GeneratedTokens
		sum.PrefillMS, sum.DecodeMS = ms(st.Prefill), ms(st.Decode)
		sum.PrefillTokensPerSecond, sum.DecodeTokensPerSecond = st.PrefillTokensPerSecond(), st.DecodeTokensPerSecond()
	}
	return p.enc.Encode(sum)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// byteList lists the bytes of s as numbers (JSON would turn []byte into
// base64, and a byte-fallback token's lone byte is not valid text).
func byteList(s string) []int {
	out := make([]int, len(s))
	for i := range len(s) {
		out[i] = int(s[i])
	}
	return out
}
