//go:build unix

package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/limittest"
)

func TestMain(m *testing.M) { limittest.Main(m, status) }

// commandLimit is the memory the command may use in these tests: plenty
// for the built-in models, nothing like what the hostile inputs ask for.
const commandLimit = 1 << 30

// writeModel saves a model of shape c with small weights (bad, when set,
// goes into wq[0]) and a byte-level tokenizer that fits it.
func writeModel(t *testing.T, dir string, c engine.Config, bad float32) (model, tok string) {
	t.Helper()
	w, err := engine.NewWeights(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, tn := range w.Tensors(c) {
		for i := range tn.Data {
			tn.Data[i] = float32(i%7) * 0.01
		}
	}
	if bad != 0 {
		w.Wq[0] = bad
	}
	model = filepath.Join(dir, "model.bin")
	if m, err := engine.NewModel(c, w); err != nil {
		t.Fatal(err)
	} else if err := m.Save(model); err != nil {
		t.Fatal(err)
	}
	pieces := []string{"<unk>", "<s>", "</s>"}
	for b := range 256 {
		pieces = append(pieces, fmt.Sprintf("<0x%02X>", b))
	}
	pieces = append(pieces, " x")
	tk, err := engine.NewTokenizer(pieces, make([]float32, len(pieces)), 0)
	if err != nil {
		t.Fatal(err)
	}
	tok = filepath.Join(dir, "tokenizer.bin")
	if err := tk.Save(tok); err != nil {
		t.Fatal(err)
	}
	return model, tok
}

// TestEvalFlagsAndFiles runs the command, in a child process under a 1 GiB
// data limit, on every kind of bad flag value and bad input file: each
// must get its message and exit status — 2 for the command line, 1 for
// files and work — and none may run out of memory.
func TestEvalFlagsAndFiles(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "x.go")
	os.WriteFile(text, []byte("package x\n\nfunc X() {}\n"), 0o644)
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	withFIFO := t.TempDir()
	os.WriteFile(filepath.Join(withFIFO, "a.go"), []byte("package a\n"), 0o644)
	syscall.Mkfifo(filepath.Join(withFIFO, "b.go"), 0o644)

	small := engine.Config{Dim: 8, HiddenDim: 8, NLayers: 1, NHeads: 2, NKVHeads: 2, VocabSize: 260, SeqLen: 64, SharedClassifier: true}
	nanModel, nanTok := writeModel(t, t.TempDir(), small, float32(math.NaN()))
	deep := small
	deep.SeqLen = 1 << 20 // a 16 MB file whose context is a million tokens
	deepModel, deepTok := writeModel(t, t.TempDir(), deep, 0)
	long := filepath.Join(dir, "long.txt")
	os.WriteFile(long, []byte(strings.Repeat("x", 100_000)), 0o644)

	for _, c := range []struct {
		args   []string
		status int
		want   string
	}{
		{nil, 2, "nothing to evaluate"},
		{[]string{"-nosuch"}, 2, "flag provided but not defined: -nosuch"},
		{[]string{"-funcs", "many"}, 2, `invalid value "many" for flag -funcs`},
		{[]string{"-funcs", "-5"}, 2, "-funcs = -5: the number of functions to sample must be at least 1"},
		{[]string{"-funcs", "0"}, 2, "-funcs = 0: the number of functions to sample must be at least 1"},
		{[]string{"-funcs", "2", "-text", text}, 2, "use one at a time"},
		{[]string{"-funcs", "2", text}, 2, "use one at a time"},
		{[]string{"-funcs", "2", "-repeat"}, 2, "-repeat applies only with -text"},
		{[]string{"-funcs", "2", "-show", "-1"}, 2, "-show = -1: the number of samples to print must be 0 or more"},
		{[]string{"-funcs", "2", "-top-p", "0"}, 2, "-top-p = 0: must be in (0, 1] (1 is off)"},
		{[]string{"-funcs", "2", "-top-p", "1.5"}, 2, "-top-p = 1.5"},
		{[]string{"-funcs", "2", "-top-p", "NaN"}, 2, "-top-p = NaN"},
		{[]string{"-funcs", "2", "-temperature", "-1"}, 2, "-temperature = -1: must be 0 (greedy) or between 0.001 and 100"},
		{[]string{"-funcs", "2", "-temperature", "1e-38"}, 2, "-temperature = 1e-38"},
		{[]string{"-funcs", "2", "-temperature", "Inf"}, 2, "-temperature = +Inf"},
		{[]string{"-text", text, "-prompt", "x"}, 2, "-prompt applies only with -funcs"},
		{[]string{"-text", text, "-show", "5"}, 2, "-show applies only with -funcs"},
		{[]string{"-text", text, "-top-p", "0.5", "-temperature", "1"}, 2, "-temperature, -top-p apply only with -funcs"},
		{[]string{"-repeat", text, text}, 2, "-repeat applies only to a single -text FILE"},
		{[]string{"-stops", "0"}, 2, "-stops = 0: the number of texts to sample must be at least 1"},
		{[]string{"-stops", "2", "-text", text}, 2, "use one at a time"},
		{[]string{"-stops", "2", "-funcs", "2"}, 2, "use one at a time"},
		{[]string{"-stops", "2", text}, 2, "use one at a time"},
		{[]string{"-stops", "2", "-temperature", "1"}, 2, "-temperature applies only with -funcs, which samples functions at one setting (-stops samples at two fixed ones)"},
		{[]string{"-stops", "2", "-repeat"}, 2, "-repeat applies only with -text"},
		{[]string{"-text", text, "-corpus", dir}, 2, "-corpus applies only with -stops"},
		{[]string{"-funcs", "2", "-corpus", dir}, 2, "-corpus applies only with -stops"},
		{[]string{"-stops", "1", "-corpus", withFIFO}, 1, "b.go is a named pipe (FIFO)"},
		{[]string{"-stops", "1", "-corpus", filepath.Join(dir, "missing")}, 1, "no such file"},
		{[]string{"-tokenizer", nanTok, "-text", text}, 2, `-tokenizer applies only to a model file: the built-in "default" model`},
		{[]string{"-model", "draft", "-tokenizer", nanTok, "-text", text}, 2, `the built-in "draft" model`},

		{[]string{"-text", "/dev/zero"}, 1, "/dev/zero is a character device, not a regular file"},
		{[]string{"-text", fifo}, 1, "is a named pipe (FIFO)"},
		{[]string{fifo}, 1, "is a named pipe (FIFO)"},
		{[]string{withFIFO}, 1, "b.go is a named pipe (FIFO)"},
		{[]string{"-text", filepath.Join(dir, "missing.txt")}, 1, "no such file"},
		{[]string{"-text", empty}, 1, "is empty: nothing to evaluate"},
		{[]string{"-model", fifo, "-text", text}, 1, "is a named pipe (FIFO)"},
		{[]string{"-model", nanModel, "-tokenizer", fifo, "-text", text}, 1, "weight wq[0] is NaN"},
		{[]string{"-model", deepModel, "-tokenizer", deepTok, "-text", text}, 0, "bits per byte"},
		{[]string{"-model", deepModel, "-tokenizer", deepTok, "-text", long}, 1, "a pass over a batch of 1 × 10000"},
		{[]string{"-model", deepModel, "-tokenizer", nanTok, "-text", text}, 0, "bits per byte"},
	} {
		r := limittest.Command(t, commandLimit, c.args...)
		out := r.Stdout + r.Stderr
		if r.Status != c.status || !strings.Contains(out, c.want) {
			t.Errorf("eval %s: status %d, output %q; want status %d and %q", strings.Join(c.args, " "), r.Status, out, c.status, c.want)
		}
	}
}
