//go:build unix

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tokenbytoken/course/engine/internal/limittest"
)

func TestMain(m *testing.M) {
	limittest.Main(m, func(args []string, stdout, stderr io.Writer) int {
		return status(context.Background(), args, stdout, stderr)
	})
}

// commandLimit is the memory the command may use in these tests.
const commandLimit = 1 << 30

// TestTrainFlagsAndFiles runs the command, in a child process under a
// 1 GiB data limit, on every kind of bad flag value and bad input file.
// None may start a run it was not asked for, and none may run out of
// memory.
func TestTrainFlagsAndFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	withFIFO := t.TempDir()
	os.WriteFile(filepath.Join(withFIFO, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644)
	syscall.Mkfifo(filepath.Join(withFIFO, "b.go"), 0o644)
	// A 789-byte checkpoint whose header asks for a 69-billion-parameter
	// model: 828 GB of parameters and moments.
	hostile := filepath.Join(dir, "hostile.ckpt")
	js := `{"Config":{"Model":{"Dim":8192,"HiddenDim":32768,"NLayers":64,"NHeads":64,"NKVHeads":64,"VocabSize":32000,"SeqLen":4096,"SharedClassifier":true},"BatchSize":1,"Steps":1,"LR":0.001,"Beta1":0.9,"Beta2":0.95,"EvalBatches":1},"NumParams":68982677504}`
	var b bytes.Buffer
	b.WriteString("TBTCKPT1")
	b.Write([]byte{byte(len(js)), byte(len(js) >> 8), 0, 0})
	b.WriteString(js)
	b.Write(make([]byte, 789-b.Len()))
	os.WriteFile(hostile, b.Bytes(), 0o644)
	kept := t.TempDir() // holds a 300-token tokenizer after the first good run
	out := func() string { return t.TempDir() }
	tiny := []string{"-preset", "tiny", "-quiet", "-corpus", smallCorpus()}

	for _, c := range []struct {
		args   []string
		status int
		want   string
	}{
		{nil, 2, "nothing to do: pass -all, or -stage"},
		{[]string{"-nosuch"}, 2, "flag provided but not defined: -nosuch"},
		{[]string{"-all", "-out", out(), "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"-all", "-stage", "target", "-out", out()}, 2, "-all runs every stage and -stage picks some: use one"},
		{[]string{"-stage", "tokeniser", "-out", out()}, 2, `unknown stage "tokeniser"`},
		{[]string{"-all"}, 2, "-out DIR is required"},
		{[]string{"-all", "-out", out(), "-preset", "huge"}, 2, `unknown preset "huge"`},
		{[]string{"-all", "-out", out(), "-limit", "-1"}, 2, "-limit = -1: must be 0 (all of the corpus) or positive"},
		{[]string{"-all", "-out", out(), "-target-steps", "-5"}, 2, "-target-steps = -5: must be positive"},
		{[]string{"-all", "-out", out(), "-target-steps", "0"}, 2, "-target-steps = 0: must be positive"},
		{[]string{"-all", "-out", out(), "-draft-steps", "-1"}, 2, "-draft-steps = -1: must be positive"},
		{[]string{"-all", "-out", out(), "-vocab", "-3"}, 2, "-vocab = -3: must be positive"},
		{[]string{"-all", "-out", out(), "-vocab", "200"}, 2, "-vocab = 200: must be between 260"},
		{[]string{"-all", "-out", out(), "-vocab", "70000"}, 2, "-vocab = 70000"},
		{[]string{"-stage", "draft", "-out", out(), "-target-steps", "5"}, 2, "-target-steps applies only to the target stage"},
		{[]string{"-stage", "target", "-out", out(), "-vocab", "500"}, 2, "-vocab applies only to the tokenizer stage"},
		{[]string{"-export", hostile, "-all"}, 2, "-export writes the model of a checkpoint and does nothing else"},

		{[]string{"-export", fifo}, 1, "is a named pipe (FIFO)"},
		{[]string{"-export", "/dev/zero"}, 1, "is a character device"},
		{[]string{"-export", filepath.Join(dir, "missing.ckpt")}, 1, "no such file"},
		{[]string{"-export", hostile}, 1, "file is 789 bytes but its header (68982677504 parameters, with AdamW's two moments) needs exactly"},
		{append([]string{"-all", "-out", out()}, append(tiny, "-corpus", withFIFO)...), 1, "b.go is a named pipe (FIFO)"},
		{append([]string{"-stage", "tokenizer", "-out", kept}, tiny...), 0, "tokenizer: 300 tokens trained"},
		{append([]string{"-stage", "tokenizer", "-out", kept, "-vocab", "400"}, tiny...), 1, "-vocab = 400, but " + filepath.Join(kept, "tokenizer.bin") + ", kept from an earlier run, has 300 tokens"},
	} {
		r := limittest.Command(t, commandLimit, c.args...)
		all := r.Stdout + r.Stderr
		if r.Status != c.status || !strings.Contains(all, c.want) {
			t.Errorf("train %s: status %d, output %q; want status %d and %q", strings.Join(c.args, " "), r.Status, all, c.status, c.want)
		}
	}
}

// TestTrainCtrlCWhileTokenizing: Ctrl-C before the tokenizer is trained
// stops at once with status 130 and leaves nothing behind.
func TestTrainCtrlCWhileTokenizing(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := status(ctx, []string{"-all", "-preset", "tiny", "-quiet", "-out", out, "-corpus", smallCorpus()}, &stdout, &stderr)
	if code != 130 || !strings.Contains(stderr.String(), "training interrupted while counting the corpus for the tokenizer") {
		t.Errorf("status %d, stderr %q; want 130 and the interruption", code, stderr.String())
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("the interrupted run left %d files in %s", len(entries), out)
	}
}

// TestTrainCleansUpAndWritesAtomically: a temporary file that a killed
// save left is removed by the next run, which says so; the summary is
// written like every other file, through a temporary.
func TestTrainCleansUpAndWritesAtomically(t *testing.T) {
	out := t.TempDir()
	stale := filepath.Join(out, ".target.ckpt.tmp-999999999-42")
	os.WriteFile(stale, make([]byte, 1<<20), 0o600)
	var stdout, stderr bytes.Buffer
	code := status(context.Background(), []string{"-stage", "tokenizer,draft", "-preset", "tiny", "-quiet", "-out", out, "-corpus", smallCorpus()}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "removed "+stale+", left half-written by a run that was killed") {
		t.Errorf("the run did not report removing %s:\n%s", stale, stdout.String())
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("%s left in the output directory", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(out, "draft.json")); err != nil {
		t.Error(err)
	}
}
