// Command eval measures how well a model predicts a text file: bits per
// byte (comparable with any tokenizer, and with compressors: a file
// compressed to s bytes costs 8·s bits) and nats per token.
//
//	go run ./engine/cmd/eval -text FILE                 # the embedded default model
//	go run ./engine/cmd/eval -model draft -text FILE    # the embedded draft model
//	go run ./engine/cmd/eval -model m.bin -tokenizer tokenizer.bin -text FILE
//	go run ./engine/cmd/eval -funcs 50                  # share of sampled functions that parse
//	go run ./engine/cmd/eval a.go b.go some/dir         # one line per file, and the total
//	go run ./engine/cmd/eval -repeat -text FILE         # also: what a second copy costs
//
// -repeat measures copying from the context: the text is scored again
// followed by itself, and the extra bits are the cost of the second copy.
// A compressor such as xz stores a repeat as a short reference; a model
// pays little for it only if it has learned to look up where the current
// text occurred before and read what came next.
//
// With several files (or a directory: every .go file below it), eval
// prints one line per file and a total over all of them (the total bits
// divided by the total bytes), each next to gzip -9 on the same bytes, so
// the model can be compared with a compressor without leaving Go.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/train"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	modelFlag := fs.String("model", "default", `model: "default" (embedded target), "draft" (embedded draft) or a llama2.c checkpoint path`)
	tokFlag := fs.String("tokenizer", "", "tokenizer.bin for a model file (default: tokenizer.bin next to the model)")
	textFlag := fs.String("text", "", "text file to evaluate")
	funcs := fs.Int("funcs", 0, "instead of -text: sample this many functions and report how many parse")
	prompt := fs.String("prompt", "func ", "prompt for -funcs")
	temp := fs.Float64("temperature", 0.8, "sampling temperature for -funcs")
	topP := fs.Float64("top-p", 0.95, "top-p for -funcs")
	show := fs.Int("show", 3, "print the first samples of -funcs")
	repeat := fs.Bool("repeat", false, "with -text: also report the bits per byte of a second copy of the text")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *funcs > 0 {
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
	if *textFlag == "" {
		return errors.New("-text FILE (or files and directories as arguments) is required")
	}
	text, err := os.ReadFile(*textFlag)
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

func load(model, tokPath string) (*engine.Model, *engine.Tokenizer, error) {
	switch model {
	case "default":
		return engine.Default()
	case "draft":
		return engine.DefaultDraft()
	}
	m, err := engine.LoadModel(model)
	if err != nil {
		return nil, nil, err
	}
	if tokPath == "" {
		tokPath = filepath.Join(filepath.Dir(model), "tokenizer.bin")
	}
	tok, err := engine.LoadTokenizer(tokPath, m.Config.VocabSize)
	if err != nil {
		return nil, nil, err
	}
	return m, tok, nil
}
