package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/internal/cli"
	"github.com/tokenbytoken/course/engine/internal/regular"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/engine/train"
)

func main() { os.Exit(status(os.Args[1:], os.Stdout, os.Stderr)) }

// status runs the command and returns its exit status.
func status(args []string, stdout, stderr io.Writer) int {
	return cli.Status("eval", stderr, nil, func() error { return run(args, stdout, stderr) })
}

// maxTextBytes is the largest text file eval reads. Tokenizing and scoring
// it needs far more memory again, which the engine checks before it starts.
const maxTextBytes = 1 << 30

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	modelFlag := fs.String("model", "default", `model: "default" (embedded target), "draft" (embedded draft), "smollm2" (SmolLM2-135M-Instruct, installed by make install), a GGUF file or a llama2.c checkpoint path`)
	tokFlag := fs.String("tokenizer", "", "tokenizer.bin for a model file (default: tokenizer.bin next to the model)")
	textFlag := fs.String("text", "", "text file to evaluate")
	funcs := fs.Int("funcs", 0, "instead of -text: sample this many functions and report how many parse")
	prompt := fs.String("prompt", "func ", "prompt for -funcs and -stops")
	stops := fs.Int("stops", 0, "instead of -text: sample this many texts at each of two settings until end-of-text and compare their lengths with the training documents'")
	corpus := fs.String("corpus", "", "with -stops: the corpus the model was trained on (default: $(go env GOROOT)/src)")
	temp := fs.Float64("temperature", 0.8, "sampling temperature for -funcs (0 is greedy)")
	topP := fs.Float64("top-p", 0.95, "top-p for -funcs, in (0, 1] (1 is off)")
	show := fs.Int("show", 3, "print the first samples of -funcs (0: none)")
	repeat := fs.Bool("repeat", false, "with -text: also report the bits per byte of a second copy of the text")
	set, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if err := checkFlags(fs, set, *modelFlag, *funcs, *stops, *temp, *topP, *show); err != nil {
		return err
	}
	if set["stops"] {
		m, tok, err := load(*modelFlag, *tokFlag)
		if err != nil {
			return err
		}
		return measureStops(context.Background(), m, tok, *prompt, *corpus, *stops, stdout)
	}
	if set["funcs"] {
		m, tok, err := load(*modelFlag, *tokFlag)
		if err != nil {
			return err
		}
		ok, err := sampleFuncs(m, tok, *prompt, *funcs, *temp, *topP, *show, stdout)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d of %d sampled functions parse with go/parser (%.0f%%); prompt %q, temperature %v, top-p %v, seeds 1..%d\n",
			ok, *funcs, 100*float64(ok)/float64(*funcs), *prompt, *temp, *topP, *funcs)
		return nil
	}
	if fs.NArg() > 0 {
		files := fs.Args()
		if *textFlag != "" {
			files = append([]string{*textFlag}, files...)
		}
		paths, err := expand(files)
		if err != nil {
			return err
		}
		m, tok, err := load(*modelFlag, *tokFlag)
		if err != nil {
			return err
		}
		return evalFiles(m, tok, paths, stdout)
	}
	text, err := regular.ReadFile(*textFlag, maxTextBytes)
	if err != nil {
		return err
	}
	if len(text) == 0 {
		return fmt.Errorf("%s is empty: nothing to evaluate", *textFlag)
	}
	m, tok, err := load(*modelFlag, *tokFlag)
	if err != nil {
		return err
	}
	t0 := time.Now()
	r, err := train.Evaluate(m, tok, string(text))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "model:          %s (%s, %d parameters)\n", m.Name, m.Config, m.Config.NumParams())
	fmt.Fprintf(stdout, "text:           %s: %d bytes, %d tokens (%.2f bytes per token)\n", *textFlag, r.Bytes, r.Tokens, float64(r.Bytes)/float64(r.Tokens))
	fmt.Fprintf(stdout, "nats per token: %.4f (perplexity %.2f)\n", r.NatsPerToken(), math.Exp(r.NatsPerToken()))
	fmt.Fprintf(stdout, "bits per byte:  %.4f\n", r.BitsPerByte())
	if *repeat {
		twice, err := train.Evaluate(m, tok, string(text)+string(text))
		if err != nil {
			return err
		}
		second := (twice.Nats - r.Nats) / math.Ln2 / float64(r.Bytes)
		fmt.Fprintf(stdout, "second copy:    %.4f bits per byte (%.0f%% of the first)\n", second, 100*second/r.BitsPerByte())
		if T := m.Config.SeqLen; twice.Tokens+1 > T {
			fmt.Fprintf(stdout, "                the two copies are %d tokens, more than the context of %d: the second copy does not see all of the first\n", twice.Tokens+1, T)
		}
	}
	fmt.Fprintf(stdout, "time:           %v\n", time.Since(t0).Round(time.Millisecond))
	return nil
}

// checkFlags refuses flags out of range and flags that would change
// nothing in the run asked for. There are four runs: -funcs N (sampling
// functions), -stops N (where texts end), -text FILE alone (with -repeat),
// and files or directories as arguments.
func checkFlags(fs *flag.FlagSet, set map[string]bool, model string, funcs, stops int, temp, topP float64, show int) error {
	if set["tokenizer"] && (model == "default" || model == "draft" || model == "smollm2") {
		return cli.Usagef("-tokenizer applies only to a model file: the built-in %q model has its own tokenizer", model)
	}
	if set["stops"] {
		switch {
		case stops < 1:
			return cli.Usagef("-stops = %d: the number of texts to sample must be at least 1", stops)
		case set["funcs"] || set["text"] || fs.NArg() > 0:
			return cli.Usagef("-stops samples texts until they end; -funcs, -text and files are other runs: use one at a time")
		}
		if err := cli.OnlyWith(set, "with -text", "repeat"); err != nil {
			return err
		}
		return cli.OnlyWith(set, "with -funcs, which samples functions at one setting (-stops samples at two fixed ones)", "temperature", "top-p", "show")
	}
	if err := cli.OnlyWith(set, "with -stops", "corpus"); err != nil {
		return err
	}
	if !set["funcs"] {
		if err := cli.OnlyWith(set, "with -funcs or -stops, which sample texts", "prompt"); err != nil {
			return err
		}
		if err := cli.OnlyWith(set, "with -funcs, which samples functions", "temperature", "top-p", "show"); err != nil {
			return err
		}
		if fs.NArg() == 0 && !set["text"] {
			return cli.Usagef("nothing to evaluate: give -text FILE, files or directories as arguments, -funcs N or -stops N")
		}
		if set["repeat"] && fs.NArg() > 0 {
			return cli.Usagef("-repeat applies only to a single -text FILE, not to files given as arguments")
		}
		return nil
	}
	switch {
	case funcs < 1:
		return cli.Usagef("-funcs = %d: the number of functions to sample must be at least 1", funcs)
	case set["text"] || fs.NArg() > 0:
		return cli.Usagef("-funcs samples functions and -text or files score a text: use one at a time")
	case set["repeat"]:
		return cli.Usagef("-repeat applies only with -text")
	case show < 0:
		return cli.Usagef("-show = %d: the number of samples to print must be 0 or more", show)
	case math.IsNaN(topP) || topP <= 0 || topP > 1:
		return cli.Usagef("-top-p = %v: must be in (0, 1] (1 is off)", topP)
	}
	if err := (decoding.Options{Temperature: temp}).Validate(0); err != nil {
		var se *decoding.SettingError
		if errors.As(err, &se) {
			return cli.Usagef("-temperature = %v: %s", temp, se.Problem)
		}
		return cli.UsageError{Msg: err.Error()}
	}
	return nil
}

func load(model, tokPath string) (*engine.Model, *engine.Tokenizer, error) {
	return models.Load(model, tokPath)
}
