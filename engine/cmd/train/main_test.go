package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/train"
)

// smallCorpus is a small package of the installed Go source, so that the
// whole pipeline runs in seconds.
func smallCorpus() string { return filepath.Join(runtime.GOROOT(), "src", "errors") }

// TestTrainAllTiny runs the documented command with the tiny preset:
// tokenizer, target and draft, then checks the outputs load in the engine
// and that running the command again keeps what is already there.
func TestTrainAllTiny(t *testing.T) {
	out := t.TempDir()
	args := []string{"-all", "-preset", "tiny", "-quiet", "-out", out, "-corpus", smallCorpus()}
	var log bytes.Buffer
	if err := run(context.Background(), args, &log, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	tok, err := engine.LoadTokenizer(filepath.Join(out, "tokenizer.bin"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if tok.VocabSize() != train.Presets["tiny"].Vocab {
		t.Errorf("tokenizer has %d tokens, want %d", tok.VocabSize(), train.Presets["tiny"].Vocab)
	}
	for _, name := range []string{"target", "draft"} {
		m, err := engine.LoadModel(filepath.Join(out, name+".bin"))
		if err != nil {
			t.Fatal(err)
		}
		if m.Config.VocabSize != tok.VocabSize() {
			t.Errorf("%s: vocab_size %d, tokenizer %d", name, m.Config.VocabSize, tok.VocabSize())
		}
		if _, err := os.Stat(filepath.Join(out, name+".json")); err != nil {
			t.Errorf("%s: no summary: %v", name, err)
		}
		st, err := train.LoadState(filepath.Join(out, name+".ckpt"))
		if err != nil {
			t.Fatal(err)
		}
		if st.Step != st.Config.Steps {
			t.Errorf("%s: checkpoint at step %d of %d", name, st.Step, st.Config.Steps)
		}
	}
	before, _ := os.ReadFile(filepath.Join(out, "target.bin"))
	log.Reset()
	if err := run(context.Background(), args, &log, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "keeping") {
		t.Errorf("second run did not keep the tokenizer:\n%s", log.String())
	}
	after, _ := os.ReadFile(filepath.Join(out, "target.bin"))
	if !bytes.Equal(before, after) {
		t.Error("running the finished command again changed the target model")
	}
}

// TestTrainInterruptedThenResumed cancels the run as Ctrl-C does, checks
// the message and the checkpoint, and resumes with the same command.
func TestTrainInterruptedThenResumed(t *testing.T) {
	out := t.TempDir()
	args := []string{"-stage", "tokenizer,target", "-preset", "tiny", "-quiet", "-out", out, "-corpus", smallCorpus()}
	// A first, short run makes the tokenizer and the token cache and
	// trains four steps; the second asks for the preset's steps.
	var log bytes.Buffer
	if err := run(context.Background(), append(args, "-target-steps", "4"), &log, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // interrupted before its first step
	err := run(ctx, args, &log, &log)
	if !errors.Is(err, train.ErrInterrupted) {
		t.Fatalf("got %v, want an interruption", err)
	}
	if _, err := os.Stat(filepath.Join(out, "tokenizer.bin")); err != nil {
		t.Errorf("the finished tokenizer stage was lost: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "target.ckpt")); err != nil {
		t.Errorf("no checkpoint after the interruption: %v", err)
	}
	// The checkpoint's model (at step 4) can be exported and loaded while
	// the run is unfinished.
	log.Reset()
	if err := run(context.Background(), []string{"-export", filepath.Join(out, "target.ckpt")}, &log, &log); err != nil {
		t.Fatalf("export: %v", err)
	}
	exported, err := engine.LoadModel(filepath.Join(out, "target-step4.bin"))
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	st, err := train.LoadState(filepath.Join(out, "target.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := st.Params.Model()
	if err != nil {
		t.Fatal(err)
	}
	if exported.Config != want.Config || !slices.Equal(exported.Weights().Wq, want.Weights().Wq) || !slices.Equal(exported.Weights().W2, want.Weights().W2) {
		t.Errorf("the exported model differs from the checkpoint's")
	}
	if !strings.Contains(log.String(), "step 4 of") {
		t.Errorf("export output does not say which step:\n%s", log.String())
	}
	if err := run(context.Background(), args, &log, &log); err != nil {
		t.Fatalf("resume: %v\n%s", err, log.String())
	}
	if _, err := engine.LoadModel(filepath.Join(out, "target.bin")); err != nil {
		t.Fatal(err)
	}
}

func TestTrainBadInput(t *testing.T) {
	emptyDir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-out", t.TempDir()}, "nothing to do"},
		{[]string{"-export", filepath.Join(emptyDir, "missing.ckpt")}, "no such file"},
		{[]string{"-export", "main.go"}, "not a training checkpoint"},
		{[]string{"-all"}, "-out DIR is required"},
		{[]string{"-all", "-out", t.TempDir(), "-preset", "huge"}, "unknown preset"},
		{[]string{"-stage", "tokeniser", "-out", t.TempDir()}, "unknown stage"},
		{[]string{"-all", "-preset", "tiny", "-out", t.TempDir(), "-corpus", filepath.Join(emptyDir, "missing")}, "no such file"},
		{[]string{"-all", "-preset", "tiny", "-out", t.TempDir(), "-corpus", emptyDir}, "no non-empty"},
		{[]string{"-all", "-preset", "tiny", "-out", t.TempDir(), "-corpus", smallCorpus(), "-vocab", "200"}, "-vocab = 200: must be between 260"},
		{[]string{"-stage", "target", "-preset", "tiny", "-out", t.TempDir()}, "run the tokenizer stage first"},
	} {
		var log bytes.Buffer
		err := run(context.Background(), c.args, &log, &log)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error containing %q", c.args, err, c.want)
		}
	}
}
