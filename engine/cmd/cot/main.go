package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/cot"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/internal/cli"
	"github.com/tokenbytoken/course/engine/train"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := status(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// status runs the command and returns its exit status, as cli.Status
// gives it, with 130 after Ctrl-C (as the train command).
func status(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	interrupted := func(err error) (int, bool) { return 130, errors.Is(err, train.ErrInterrupted) }
	return cli.Status("cot", stderr, interrupted, func() error { return run(ctx, args, stdout, stderr) })
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "output directory (created if needed; an interrupted run resumes from it)")
	preset := fs.String("preset", "full", "training preset: "+strings.Join(presetNames(), " or "))
	formats := fs.String("format", "direct,steps", "which models to train: direct, steps or both")
	steps := fs.Int("steps", 0, "override the preset's number of training steps")
	evalCount := fs.Int("eval", 200, "held-out problems per size for the accuracy in FORMAT.json (0: skip)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	if _, err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected arguments %q", fs.Args())
	}
	if *out == "" {
		return cli.Usagef("-out DIR is required")
	}
	pre, ok := cot.Presets[*preset]
	if !ok {
		return cli.Usagef("unknown preset %q (%s)", *preset, strings.Join(presetNames(), " or "))
	}
	var todo []cot.Format
	for _, s := range strings.Split(*formats, ",") {
		f, err := cot.ParseFormat(strings.TrimSpace(s))
		if err != nil {
			return cli.UsageError{Msg: err.Error()}
		}
		todo = append(todo, f)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	tok, err := cot.NewTokenizer()
	if err != nil {
		return err
	}
	if err := tok.Save(filepath.Join(*out, "tokenizer.bin")); err != nil {
		return err
	}
	for _, f := range todo {
		p := pre[f]
		if *steps > 0 {
			p.Train.Steps = *steps
			p.Train.WarmupSteps = min(p.Train.WarmupSteps, *steps/2)
		}
		if err := trainOne(ctx, f, p, tok, *out, *evalCount, *quiet, stdout); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	return nil
}

func presetNames() []string {
	var names []string
	for n := range cot.Presets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// summary is what a finished model writes next to itself.
type summary struct {
	Format          string
	Shape           string
	Params          int64
	FileBytes       int64
	Steps           int
	TokensSeen      int64
	TrainingSeconds float64
	ValLoss         float64            // nats per token
	Accuracy        map[string]float64 // greedy accuracy per number of digits
	TokensPerAnswer map[string]float64 // generated tokens per answer, per number of digits
	Preset          cot.Preset
}

func trainOne(ctx context.Context, f cot.Format, p cot.Preset, tok *engine.Tokenizer, dir string, evalCount int, quiet bool, stdout io.Writer) error {
	t0 := time.Now()
	data, err := cot.Data(tok, f, p.Examples, p.ValExamples, p.ExamplesSeed)
	if err != nil {
		return err
	}
	cfg := p.Train
	cfg.Model.VocabSize = tok.VocabSize()
	fmt.Fprintf(stdout, "%s: %d training examples (%d tokens) built in %v\n", f, p.Examples, len(data.Train), time.Since(t0).Round(time.Millisecond))
	fmt.Fprintf(stdout, "%s: %v, %d parameters, %d steps of %d tokens\n", f, cfg.Model, cfg.Model.NumParams(), cfg.Steps, cfg.TokensPerStep())
	opts := train.Options{Checkpoint: filepath.Join(dir, f.String()+".ckpt")}
	if !quiet {
		opts.OnStep = train.ProgressBar(stdout, f.String())
	}
	st, err := train.Train(ctx, cfg, data, opts)
	if err != nil {
		return err
	}
	m, err := st.Params.Model()
	if err != nil {
		return err
	}
	path := filepath.Join(dir, f.String()+".bin")
	if err := m.Save(path); err != nil {
		return err
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	s := summary{Format: f.String(), Shape: cfg.Model.String(), Params: cfg.Model.NumParams(), FileBytes: info.Size(),
		Steps: st.Step, TokensSeen: st.Tokens, TrainingSeconds: st.Elapsed.Seconds(), ValLoss: st.ValLoss,
		Accuracy: map[string]float64{}, TokensPerAnswer: map[string]float64{}, Preset: p}
	fmt.Fprintf(stdout, "%s: saved %s (%d bytes): %d tokens in %v, validation loss %.4f nats/token\n",
		f, path, info.Size(), st.Tokens, st.Elapsed.Round(time.Second), st.ValLoss)
	if evalCount > 0 {
		fmt.Fprintf(stdout, "%s: greedy accuracy on %d held-out problems per size:", f, evalCount)
		for d := 1; d <= cot.MaxDigits; d++ {
			sc, err := cot.Evaluate(ctx, m, tok, cot.Problems(d, evalCount, cot.TestSeed), decoding.Options{})
			if err != nil {
				return err
			}
			key := fmt.Sprint(d)
			s.Accuracy[key], s.TokensPerAnswer[key] = sc.Accuracy(), sc.TokensPerProblem()
			fmt.Fprintf(stdout, " %d digits %.0f%%", d, 100*sc.Accuracy())
		}
		fmt.Fprintln(stdout)
	}
	js, _ := json.MarshalIndent(s, "", "  ")
	return os.WriteFile(filepath.Join(dir, f.String()+".json"), append(js, '\n'), 0o644)
}
