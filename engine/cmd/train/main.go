package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/atomicfile"
	"github.com/tokenbytoken/course/engine/internal/cli"
	"github.com/tokenbytoken/course/engine/train"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := status(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// status runs the command and returns its exit status: 130 after Ctrl-C.
func status(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	interrupted := func(err error) (int, bool) { return 130, errors.Is(err, train.ErrInterrupted) }
	return cli.Status("train", stderr, interrupted, func() error { return run(ctx, args, stdout, stderr) })
}

// options are the command-line settings.
type options struct {
	out, corpus, stages, preset string
	limit                       int64
	vocab                       int
	targetSteps, draftSteps     int
	quiet, generated            bool
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	all := fs.Bool("all", false, "train the tokenizer, the target and the draft model")
	fs.StringVar(&o.stages, "stage", "", "comma-separated stages to run: tokenizer, target, draft")
	fs.StringVar(&o.out, "out", "", "output directory (created if needed; resumes from what it holds)")
	fs.StringVar(&o.corpus, "corpus", "", "corpus directory (default: $(go env GOROOT)/src)")
	fs.Int64Var(&o.limit, "limit", 0, "read at most this many bytes of corpus (0: all)")
	fs.IntVar(&o.vocab, "vocab", 0, "vocabulary size (default: the preset's)")
	fs.StringVar(&o.preset, "preset", "full", "model sizes and steps: full, or tiny (seconds, for tests)")
	fs.IntVar(&o.targetSteps, "target-steps", 0, "override the target model's number of steps")
	fs.IntVar(&o.draftSteps, "draft-steps", 0, "override the draft model's number of steps")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bar")
	fs.BoolVar(&o.generated, "generated", false, "also train on generated files (skipped by default)")
	export := fs.String("export", "", "write the model in this training checkpoint as a llama2.c file next to it, and stop")
	set, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if err := cli.NoArgs(fs); err != nil {
		return err
	}
	if *export != "" {
		if len(set) > 1 {
			return cli.Usagef("-export writes the model of a checkpoint and does nothing else: give it alone")
		}
		return exportCheckpoint(*export, stdout)
	}
	pre, stages, err := plan(set, *all, &o)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	for _, p := range atomicfile.CleanDir(o.out) {
		fmt.Fprintf(stdout, "removed %s, left half-written by a run that was killed\n", p)
	}
	if o.corpus == "" {
		root, err := train.GoSourceRoot()
		if err != nil {
			return err
		}
		o.corpus = root
	}

	tokPath := filepath.Join(o.out, "tokenizer.bin")
	var tok *engine.Tokenizer
	var corpus *train.Corpus
	loadCorpus := func() error {
		if corpus != nil {
			return nil
		}
		var err error
		t0 := time.Now()
		corpus, err = train.LoadGoSource(o.corpus, train.SourceOptions{Limit: o.limit, KeepGenerated: o.generated})
		if err != nil {
			return err
		}
		tb, vb := corpus.Bytes()
		fmt.Fprintf(stdout, "corpus %s: %d training files (%.1f MB), %d validation files (%.1f MB), read in %v\n",
			o.corpus, len(corpus.Train), float64(tb)/1e6, len(corpus.Val), float64(vb)/1e6, time.Since(t0).Round(time.Millisecond))
		return nil
	}

	if stages["tokenizer"] {
		if kept, err := engine.LoadTokenizer(tokPath, 0); err == nil {
			if set["vocab"] && kept.VocabSize() != o.vocab {
				return fmt.Errorf("-vocab = %d, but %s, kept from an earlier run, has %d tokens: delete it to train a new one", o.vocab, tokPath, kept.VocabSize())
			}
			fmt.Fprintf(stdout, "tokenizer: keeping %s (delete it to retrain)\n", tokPath)
		} else if _, statErr := os.Stat(tokPath); statErr == nil {
			return fmt.Errorf("%w (delete it to train a new tokenizer)", err)
		} else {
			if err := loadCorpus(); err != nil {
				return err
			}
			t0 := time.Now()
			var texts []string
			for _, s := range corpus.Train {
				texts = append(texts, s.Text)
			}
			t, err := train.TrainTokenizerContext(ctx, texts, o.vocab)
			if err != nil {
				return err
			}
			if err := t.Save(tokPath); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "tokenizer: %d tokens trained in %v, saved to %s\n", t.VocabSize(), time.Since(t0).Round(time.Millisecond), tokPath)
		}
	}
	if !stages["target"] && !stages["draft"] {
		return nil
	}
	tok, err = engine.LoadTokenizer(tokPath, 0)
	if err != nil {
		return fmt.Errorf("%w (run the tokenizer stage first)", err)
	}

	dataPath := filepath.Join(o.out, "tokens.bin")
	data, err := train.LoadData(dataPath)
	if err == nil && data.VocabSize == tok.VocabSize() {
		if corpus == nil && (set["corpus"] || set["limit"] || set["generated"]) {
			fmt.Fprintf(stdout, "tokens: keeping %s from an earlier run, so -corpus, -limit and -generated are not read again (delete it to encode the corpus anew)\n", dataPath)
		}
	} else {
		if err := loadCorpus(); err != nil {
			return err
		}
		t0 := time.Now()
		data, err = train.TokenizeContext(ctx, corpus, tok)
		if err != nil {
			return err
		}
		if err := data.Save(dataPath); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "tokens: %d training, %d validation (%.2f bytes per token), encoded in %v\n",
			len(data.Train), len(data.Val), 1/data.ValTokensPerByte(), time.Since(t0).Round(time.Millisecond))
	}

	for _, m := range []struct {
		name string
		cfg  train.Config
	}{{"target", pre.Target}, {"draft", pre.Draft}} {
		if !stages[m.name] {
			continue
		}
		cfg := m.cfg
		cfg.Model.VocabSize = tok.VocabSize()
		if err := trainModel(ctx, m.name, cfg, data, o, stdout); err != nil {
			return err
		}
	}
	return nil
}

// plan checks the flags of a training run and returns the sizes and steps
// to use and the stages to run.
func plan(set map[string]bool, all bool, o *options) (train.Preset, map[string]bool, error) {
	var none train.Preset
	if all && set["stage"] {
		return none, nil, cli.Usagef("-all runs every stage and -stage picks some: use one")
	}
	if all {
		o.stages = "tokenizer,target,draft"
	}
	if o.stages == "" {
		return none, nil, cli.Usagef("nothing to do: pass -all, or -stage tokenizer,target,draft")
	}
	stages := map[string]bool{}
	for _, s := range strings.Split(o.stages, ",") {
		switch s = strings.TrimSpace(s); s {
		case "tokenizer", "target", "draft":
			stages[s] = true
		default:
			return none, nil, cli.Usagef("unknown stage %q (tokenizer, target or draft)", s)
		}
	}
	if o.out == "" {
		return none, nil, cli.Usagef("-out DIR is required")
	}
	pre, ok := train.Presets[o.preset]
	if !ok {
		return none, nil, cli.Usagef("unknown preset %q (full or tiny)", o.preset)
	}
	for _, f := range []struct {
		name  string
		v     int64
		stage string
	}{
		{"limit", o.limit, ""}, {"vocab", int64(o.vocab), "tokenizer"},
		{"target-steps", int64(o.targetSteps), "target"}, {"draft-steps", int64(o.draftSteps), "draft"},
	} {
		switch {
		case !set[f.name]:
		case f.v < 0 || f.v == 0 && f.name != "limit":
			what := "positive"
			if f.name == "limit" {
				what = "0 (all of the corpus) or positive"
			}
			return none, nil, cli.Usagef("-%s = %d: must be %s", f.name, f.v, what)
		case f.stage != "" && !stages[f.stage]:
			return none, nil, cli.Usagef("-%s applies only to the %s stage, which this run does not include", f.name, f.stage)
		}
	}
	if set["vocab"] && (o.vocab < train.MinVocabSize || o.vocab > 1<<16) {
		return none, nil, cli.Usagef("-vocab = %d: must be between %d (3 special tokens, 256 bytes, one merge) and %d (16-bit token ids)", o.vocab, train.MinVocabSize, 1<<16)
	}
	if o.vocab == 0 {
		o.vocab = pre.Vocab
	}
	if o.targetSteps > 0 {
		pre.Target.Steps = o.targetSteps
	}
	if o.draftSteps > 0 {
		pre.Draft.Steps = o.draftSteps
	}
	for _, c := range []*train.Config{&pre.Target, &pre.Draft} {
		c.WarmupSteps = min(c.WarmupSteps, c.Steps/2) // for shortened runs
	}
	return pre, stages, nil
}

// summary is what a finished model stage writes next to the model.
type summary struct {
	Model           string
	Shape           string
	Params          int64
	Steps           int
	BatchSize       int
	TokensSeen      int64
	TrainingSeconds float64
	ValLoss         float64 // nats per token
	ValBitsPerByte  float64
	Config          train.Config
}

func trainModel(ctx context.Context, name string, cfg train.Config, data *train.Data, o options, stdout io.Writer) error {
	ckpt := filepath.Join(o.out, name+".ckpt")
	fmt.Fprintf(stdout, "%s: %v, %d parameters, %d steps of %d tokens\n", name, cfg.Model, cfg.Model.NumParams(), cfg.Steps, cfg.TokensPerStep())
	opts := train.Options{Checkpoint: ckpt}
	if !o.quiet {
		opts.OnStep = train.ProgressBar(stdout, name)
	}
	st, err := train.Train(ctx, cfg, data, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	path := filepath.Join(o.out, name+".bin")
	m, err := st.Params.Model()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := m.Save(path); err != nil {
		return err
	}
	s := summary{Model: name, Shape: cfg.Model.String(), Params: cfg.Model.NumParams(), Steps: st.Step,
		BatchSize: cfg.BatchSize, TokensSeen: st.Tokens, TrainingSeconds: st.Elapsed.Seconds(),
		ValLoss: st.ValLoss, ValBitsPerByte: st.ValLoss / 0.6931471805599453 * data.ValTokensPerByte(), Config: st.Config}
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("%s summary: %w", name, err)
	}
	err = atomicfile.Write(filepath.Join(o.out, name+".json"), func(w io.Writer) error {
		_, err := w.Write(append(js, '\n'))
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: saved %s: %d tokens seen in %v, validation loss %.3f nats/token, %.3f bits/byte\n",
		name, path, st.Tokens, st.Elapsed.Round(time.Second), st.ValLoss, s.ValBitsPerByte)
	return nil
}

// exportCheckpoint saves the model of a training checkpoint, at the step it
// was saved, as NAME-stepN.bin beside it; the run's own NAME.bin is left
// alone.
func exportCheckpoint(ckpt string, stdout io.Writer) error {
	st, err := train.LoadState(ckpt)
	if err != nil {
		return err
	}
	base := strings.TrimSuffix(ckpt, filepath.Ext(ckpt))
	path := fmt.Sprintf("%s-step%d.bin", base, st.Step)
	m, err := st.Params.Model()
	if err != nil {
		return err
	}
	if err := m.Save(path); err != nil {
		return err
	}
	val := "not measured yet"
	if !math.IsNaN(st.ValLoss) && st.ValLoss != 0 {
		val = fmt.Sprintf("%.3f nats/token", st.ValLoss)
	}
	fmt.Fprintf(stdout, "step %d of %d (%d tokens seen, validation loss %s): saved %s\n", st.Step, st.Config.Steps, st.Tokens, val, path)
	fmt.Fprintf(stdout, "try it: go run ./engine/cmd/generate -model %s -tokenizer %s\n", path, filepath.Join(filepath.Dir(ckpt), "tokenizer.bin"))
	return nil
}
