package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/internal/cli"
	"github.com/tokenbytoken/course/engine/models"
)

// The sampling defaults. They were chosen by generating from the built-in
// model with each candidate setting (ten prompts, sixteen seeds each) and
// counting the generations that ran for at least 200 bytes without
// repeating themselves (under 15% repeated 4-grams) at a mean
// log-probability above −1.8 nats per token. Temperature 1 with top-p 0.9
// (the usual defaults) rarely passed: this small model wanders at
// temperature 1 and loops below it. Temperature 0.7 with a repetition
// penalty of 1.3 over the last 64 tokens passed far more often, and more
// of its functions parse.
const (
	defaultMaxNew        = 256
	defaultTemperature   = 0.7
	defaultTopP          = 0.9
	defaultRepeatPenalty = 1.3
	defaultPenaltyWindow = 64
)

// config holds every flag.
type config struct {
	model, tokenizer, prompt string
	chat, system             string        // a question for a chat model, and its system message
	maxNew                   int           // -n
	temperature, topP, minP  float64       // -temperature, -topp, -minp
	topK                     int           // -topk
	seed                     uint64        // -seed; 0 picks one from the clock
	seedPicked               bool          // the seed came from the clock
	repeatPenalty            float64       // -repeat-penalty; 1 is off
	presence, frequency      float64       // -presence, -frequency
	penaltyWindow            int           // -penalty-window
	stops                    stopList      // -stop, repeatable
	includeStop              bool          // -include-stop
	timeout                  time.Duration // -timeout; 0 is none
	logprobs                 int           // -logprobs N
	json                     bool          // -json

	// The structured output flags, read by language in constrain.go: at
	// most one is set.
	jsonSchema, regex, grammar string

	// The search and speed flags, read by searchDecoder in search.go.
	beam      int    // -beam: beam width; 0 is off
	draft     string // -draft: path of a draft model for speculative decoding
	speculate int    // -speculate: tokens the draft proposes per target pass
	noCache   bool   // -no-cache: recompute every step without the KV cache

	set map[string]string // the flags given on the command line: name → value as given
}

// stopList collects the repeatable -stop flag.
type stopList []string

func (s *stopList) String() string     { return strings.Join(*s, ",") }
func (s *stopList) Set(v string) error { *s = append(*s, v); return nil }

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the whole command; it returns the exit status, which cli.Status
// gives every outcome: 2 for a mistake on the command line (a
// cli.UsageError), 1 for any other error and for a panic (a bug, never the
// user's mistake), 0 otherwise.
func run(args []string, stdout, stderr io.Writer) int {
	return cli.Status("generate", stderr, nil, func() error {
		cfg, err := parseFlags(args, stderr)
		if err != nil {
			return err
		}
		return generate(cfg, stdout, stderr)
	})
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	cfg := &config{set: map[string]string{}}
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: generate [flags]

Writes a continuation of -prompt with a llama2.c model (by default the
course's built-in model), streaming it to stdout; then says on stderr why
it stopped and how fast it ran.

Flags:
`)
		fs.PrintDefaults()
	}
	fs.StringVar(&cfg.model, "model", "", `model to run: "smollm2" (SmolLM2-135M-Instruct, installed by make install), a GGUF file, or a llama2.c checkpoint (.bin) (default: the built-in model)`)
	fs.StringVar(&cfg.tokenizer, "tokenizer", "", "llama2.c tokenizer.bin (default: tokenizer.bin beside the model)")
	fs.StringVar(&cfg.prompt, "prompt", "", "text to continue")
	fs.StringVar(&cfg.chat, "chat", "", "ask a chat model (such as -model smollm2) this, in its own chat format; stdout gets the answer alone")
	fs.StringVar(&cfg.system, "system", "", "with -chat, the system message (default: the chat template's own, if it has one)")
	fs.IntVar(&cfg.maxNew, "n", defaultMaxNew, "most tokens to generate (0: until the context is full)")
	fs.Float64Var(&cfg.temperature, "temperature", defaultTemperature, "sampling temperature; 0 is greedy")
	fs.Float64Var(&cfg.topP, "topp", defaultTopP, "top-p (nucleus) in (0, 1]; 1 is off")
	fs.IntVar(&cfg.topK, "topk", 0, "keep only the k most likely tokens; 0 is off")
	fs.Float64Var(&cfg.minP, "minp", 0, "keep tokens with p ≥ minp × p_max; 0 is off")
	fs.Uint64Var(&cfg.seed, "seed", 0, "random seed (0: pick one from the clock and report it)")
	fs.Float64Var(&cfg.repeatPenalty, "repeat-penalty", defaultRepeatPenalty, "repetition penalty, 1 is off (the default is for sampling: with -temperature 0 it is 1 unless given)")
	fs.Float64Var(&cfg.presence, "presence", 0, "presence penalty, subtracted once per token already used")
	fs.Float64Var(&cfg.frequency, "frequency", 0, "frequency penalty, subtracted per use of a token")
	fs.IntVar(&cfg.penaltyWindow, "penalty-window", defaultPenaltyWindow, "penalties look at the last N tokens only (0: the whole text)")
	fs.Var(&cfg.stops, "stop", "stop sequence (repeatable)")
	fs.BoolVar(&cfg.includeStop, "include-stop", false, "end the text with the stop sequence that ended it (with -stop)")
	fs.DurationVar(&cfg.timeout, "timeout", 0, "stop after this long, e.g. 2s (0: no limit)")
	fs.IntVar(&cfg.logprobs, "logprobs", 0, "with -json, list the N most likely tokens at every step")
	fs.BoolVar(&cfg.json, "json", false, "print one JSON object per token and a summary")
	fs.IntVar(&cfg.beam, "beam", 0, "beam search with this many beams (0: off)")
	fs.StringVar(&cfg.draft, "draft", "", "draft model for speculative decoding (\"default\": the built-in draft)")
	fs.IntVar(&cfg.speculate, "speculate", 0, fmt.Sprintf("tokens the draft model proposes per step (default %d with -draft; with the built-in model, -speculate alone uses the built-in draft)", defaultGamma))
	fs.BoolVar(&cfg.noCache, "no-cache", false, "recompute the whole prefix every step, without the KV cache")
	fs.StringVar(&cfg.jsonSchema, "json-schema", "", "write only JSON that validates against the JSON Schema in this file")
	fs.StringVar(&cfg.regex, "regex", "", "write only a match of this regular expression (the whole text matches)")
	fs.StringVar(&cfg.grammar, "grammar", "", "write only a sentence of the grammar in this file (GBNF)")
	if _, err := cli.Parse(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, cli.Usagef("unexpected argument %q (the prompt goes in -prompt)", fs.Arg(0))
	}
	fs.Visit(func(f *flag.Flag) { cfg.set[f.Name] = f.Value.String() })
	if err := cfg.check(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// check refuses values out of range and flags that would change nothing in
// the run asked for. It runs before any file is read.
func (cfg *config) check() error {
	// In Options, 0 means "unset" for these two; on the command line it
	// can only be a mistake.
	if cfg.topP <= 0 || cfg.topP > 1 {
		return cli.Usagef("-topp = %v: must be in (0, 1]; 1 is off", cfg.topP)
	}
	if cfg.repeatPenalty <= 0 {
		return cli.Usagef("-repeat-penalty = %v: must be positive; 1 is off", cfg.repeatPenalty)
	}
	// The default repetition penalty is for sampling: greedy decoding, -temperature 0, takes
	// the model's likeliest token unless a penalty is asked for.
	if cfg.temperature == 0 && !cfg.isSet("repeat-penalty") {
		cfg.repeatPenalty = 1
	}
	if cfg.isSet("chat") && cfg.isSet("prompt") {
		return cli.Usagef("-chat and -prompt do not go together: -chat asks a question in the model's chat format, -prompt gives text to continue")
	}
	if cfg.isSet("system") && !cfg.isSet("chat") {
		return cli.Usagef("-system = %q is the system message of a chat: give the question with -chat", cfg.system)
	}
	if cfg.isSet("chat") && cfg.chat == "" {
		return cli.Usagef("-chat is empty: give the question to ask")
	}
	if cfg.timeout < 0 {
		return cli.Usagef("-timeout = %v: must be a positive duration such as 2s (0: no limit)", cfg.timeout)
	}
	if cfg.logprobs > 0 && !cfg.json {
		return cli.Usagef("-logprobs = %d: the alternatives are listed in the -json output; add -json", cfg.logprobs)
	}
	if cfg.includeStop && len(cfg.stops) == 0 {
		return cli.Usagef("-include-stop keeps the stop sequence that ended the text; give one with -stop")
	}
	if err := cfg.checkLanguage(); err != nil {
		return err
	}
	if err := cfg.options().Validate(0); err != nil {
		return flagError(err)
	}
	if cfg.isSet("penalty-window") && cfg.penaltyWindow > 0 && cfg.repeatPenalty == 1 && cfg.presence == 0 && cfg.frequency == 0 {
		return cli.Usagef("-penalty-window = %d: no penalty is on (-repeat-penalty 1, -presence 0, -frequency 0), so it would change nothing", cfg.penaltyWindow)
	}
	if cfg.temperature == 0 && cfg.beam == 0 {
		// Greedy decoding takes the likeliest token, which every
		// truncation keeps, and draws nothing at random.
		for _, f := range []struct {
			name string
			on   bool
		}{{"topk", cfg.topK != 0}, {"topp", cfg.topP != 1}, {"minp", cfg.minP != 0}, {"seed", true}} {
			if cfg.isSet(f.name) && f.on {
				return cli.Usagef("-%s = %s: with -temperature 0 (greedy) it would change nothing: greedy decoding always takes the likeliest token and draws nothing at random", f.name, cfg.set[f.name])
			}
		}
	}
	return nil
}

// isSet reports whether the flag name was given on the command line.
func (cfg *config) isSet(name string) bool {
	_, ok := cfg.set[name]
	return ok
}

// options turns the flags into engine options.
func (cfg *config) options() decoding.Options {
	return decoding.Options{
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
		NoLogProbs:        !cfg.json, // only the JSON output shows them
	}
}

// flagOf names the flag behind each Options field.
var flagOf = map[string]string{
	"MaxNewTokens": "-n", "Temperature": "-temperature", "TopK": "-topk", "TopP": "-topp",
	"MinP": "-minp", "RepetitionPenalty": "-repeat-penalty", "PresencePenalty": "-presence",
	"FrequencyPenalty": "-frequency", "PenaltyWindow": "-penalty-window", "Stop": "-stop", "TopLogProbs": "-logprobs",
}

// flagError rewords an decoding.SettingError in terms of the flag.
func flagError(err error) error {
	var se *decoding.SettingError
	if !errors.As(err, &se) {
		return cli.UsageError{Msg: err.Error()}
	}
	name, _, _ := strings.Cut(se.Setting, "[")
	if f, ok := flagOf[name]; ok {
		return cli.UsageError{Msg: (&decoding.SettingError{Setting: f, Value: se.Value, Problem: se.Problem}).Error()}
	}
	return cli.UsageError{Msg: err.Error()}
}

// generate loads the model and tokenizer, runs the decoder and prints.
func generate(cfg *config, stdout, stderr io.Writer) error {
	dec, err := searchDecoder(cfg)
	if err != nil {
		return cli.UsageError{Msg: err.Error()}
	}
	lang, err := cfg.language()
	if err != nil {
		return err
	}
	m, tok, err := load(cfg)
	if err != nil {
		return err
	}
	prompt, shown := cfg.prompt, cfg.prompt
	if cfg.chat != "" {
		var msgs []engine.Message
		if cfg.system != "" {
			msgs = append(msgs, engine.Message{Role: "system", Content: cfg.system})
		}
		msgs = append(msgs, engine.Message{Role: "user", Content: cfg.chat})
		if prompt, err = tok.ChatPrompt(msgs, true); err != nil {
			return cli.UsageError{Msg: fmt.Sprintf("-chat: %v", err)}
		}
		shown = "" // stdout carries the answer alone
	}
	if cfg.seed == 0 {
		cfg.seed, cfg.seedPicked = uint64(time.Now().UnixNano()), true
	}
	opts := cfg.options()
	if opts.Decoder, err = decoderFor(dec, m, tok, prompt, opts.MaxNewTokens); err != nil {
		return err
	}
	if lang != nil {
		if opts.Constraint, err = decoding.NewConstraint(tok, lang); err != nil {
			return fmt.Errorf("%s: %w", cfg.languageFlag(), err)
		}
	}

	ctx := context.Background()
	if cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.timeout)
		defer cancel()
	}

	out := bufio.NewWriter(stdout)
	var p printer = &textPrinter{out: out, stderr: stderr, cfg: cfg, contextLen: m.Config.SeqLen,
		exact: lang != nil, shared: sameDestination(stdout, stderr)}
	if cfg.json {
		p = &jsonPrinter{w: out, stderr: stderr, cfg: cfg, contextLen: m.Config.SeqLen}
	}
	if err := p.start(shown); err != nil {
		return err
	}
	var last decoding.Step
	for step, err := range decoding.Generate(ctx, m, tok, prompt, opts) {
		if err != nil {
			out.Flush()
			var se *decoding.SettingError
			if errors.As(err, &se) {
				return flagError(err)
			}
			return err
		}
		if err := p.step(step); err != nil {
			return err
		}
		if err := out.Flush(); err != nil { // stream: show each piece now
			return err
		}
		if step.Finish != "" {
			last = step
		}
	}
	// The text is all out (flushed above) before anything goes to stderr,
	// so that the summary never lands inside it.
	return p.end(last, notes(dec, last))
}

// load reads the model and its tokenizer. Without -model it is the
// engine's embedded default model and tokenizer.
func load(cfg *config) (*engine.Model, *engine.Tokenizer, error) {
	if builtIn(cfg) {
		if cfg.tokenizer != "" {
			return nil, nil, cli.Usagef("-tokenizer = %q: the built-in model has its own tokenizer; give -model too", cfg.tokenizer)
		}
		return models.Default()
	}
	if cfg.model == "smollm2" && cfg.tokenizer != "" {
		return nil, nil, cli.Usagef("-tokenizer = %q: SmolLM2 has its own tokenizer", cfg.tokenizer)
	}
	return models.Load(cfg.model, cfg.tokenizer)
}

// builtIn says whether the run uses the built-in target model.
func builtIn(cfg *config) bool { return cfg.model == "" || cfg.model == "default" }
