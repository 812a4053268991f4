// Command train trains the course's own models from scratch on the Go
// standard library source of the installed toolchain: a byte-level BPE
// tokenizer, a target model and a small draft model (for speculative
// decoding), all in the llama2.c formats the engine reads.
//
//	go run ./engine/cmd/train -all -out DIR
//
// retrains everything; -stage picks some of tokenizer, target and draft.
// Each stage resumes from what DIR already holds: an existing tokenizer and
// token cache are reused, and an interrupted model (Ctrl-C saves a
// checkpoint) continues where it stopped when the same command is run again.
//
//	go run ./engine/cmd/train -export DIR/target.ckpt
//
// writes the model inside a checkpoint, as it is at that step, as a llama2.c
// file next to it (DIR/target-step1200.bin), so a run can be tried with
// generate or eval while it is still training.
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
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/train"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		if errors.Is(err, train.ErrInterrupted) {
			os.Exit(130)
		}
		os.Exit(1)
	}
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
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *export != "" {
		return exportCheckpoint(*export, stdout)
	}
	if *all {
		o.stages = "tokenizer,target,draft"
	}
	if o.stages == "" {
		return errors.New("nothing to do: pass -all, or -stage tokenizer,target,draft")
	}
	if o.out == "" {
		return errors.New("-out DIR is required")
	}
	pre, ok := train.Presets[o.preset]
	if !ok {
		return fmt.Errorf("unknown preset %q (full or tiny)", o.preset)
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
	stages := map[string]bool{}
	for _, s := range strings.Split(o.stages, ",") {
		switch s = strings.TrimSpace(s); s {
		case "tokenizer", "target", "draft":
			stages[s] = true
		default:
			return fmt.Errorf("unknown stage %q (tokenizer, target or draft)", s)
		}
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	if o.corpus == "" {
		root, err := goroot()
		if err != nil {
			return err
		}
		o.corpus = filepath.Join(root, "src")
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
		if _, err := os.Stat(tokPath); err == nil {
			fmt.Fprintf(stdout, "tokenizer: keeping %s (delete it to retrain)\n", tokPath)
		} else {
			if err := loadCorpus(); err != nil {
				return err
			}
			t0 := time.Now()
			var texts []string
			for _, s := range corpus.Train {
				texts = append(texts, s.Text)
			}
			t, err := train.TrainTokenizer(texts, o.vocab)
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
	tok, err := engine.LoadTokenizer(tokPath, 0)
	if err != nil {
		return fmt.Errorf("%w (run the tokenizer stage first)", err)
	}

	dataPath := filepath.Join(o.out, "tokens.bin")
	data, err := train.LoadData(dataPath)
	if err != nil || data.VocabSize != tok.VocabSize() {
		if err := loadCorpus(); err != nil {
			return err
		}
		t0 := time.Now()
		data, err = train.Tokenize(corpus, tok)
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
	m := st.Params.Model()
	if err := m.Save(path); err != nil {
		return err
	}
	s := summary{Model: name, Shape: cfg.Model.String(), Params: cfg.Model.NumParams(), Steps: st.Step,
		BatchSize: cfg.BatchSize, TokensSeen: st.Tokens, TrainingSeconds: st.Elapsed.Seconds(),
		ValLoss: st.ValLoss, ValBitsPerByte: st.ValLoss / 0.6931471805599453 * data.ValTokensPerByte(), Config: st.Config}
	js, _ := json.MarshalIndent(s, "", "  ")
	if err := os.WriteFile(filepath.Join(o.out, name+".json"), append(js, '\n'), 0o644); err != nil {
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
	if err := st.Params.Model().Save(path); err != nil {
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

// goroot finds the installed Go toolchain's root.
func goroot() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err == nil {
		if r := strings.TrimSpace(string(out)); r != "" {
			return r, nil
		}
	}
	if r := runtime.GOROOT(); r != "" {
		return r, nil
	}
	return "", errors.New("cannot find GOROOT; pass -corpus DIR")
}
