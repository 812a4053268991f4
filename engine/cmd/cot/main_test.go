package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/cot"
)

func TestTinyRun(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-out", dir, "-preset", "tiny", "-eval", "2", "-quiet"}, &out, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	tok, err := engine.LoadTokenizer(filepath.Join(dir, "tokenizer.bin"), 0)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := cot.NewTokenizer()
	if id, same := tok.SameVocabulary(want); !same {
		t.Errorf("tokenizer.bin differs from cot.NewTokenizer at token %d", id)
	}
	for _, f := range cot.Formats {
		m, err := engine.LoadModel(filepath.Join(dir, f.String()+".bin"))
		if err != nil {
			t.Fatal(err)
		}
		if m.Config.VocabSize != tok.VocabSize() {
			t.Errorf("%s model: vocabulary %d, tokenizer %d", f, m.Config.VocabSize, tok.VocabSize())
		}
		data, err := os.ReadFile(filepath.Join(dir, f.String()+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var s summary
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		if s.Format != f.String() || s.Steps != cot.Presets["tiny"][f].Train.Steps || len(s.Accuracy) != cot.MaxDigits {
			t.Errorf("%s.json = %+v", f, s)
		}
	}
	// The same command again resumes from the finished checkpoints.
	out.Reset()
	if err := run(context.Background(), []string{"-out", dir, "-preset", "tiny", "-format", "steps", "-eval", "0", "-quiet"}, &out, &out); err != nil {
		t.Fatalf("second run: %v\n%s", err, out.String())
	}
}

// TestExitStatus: a mistake on the command line is status 2 and says what
// it is, -h is 0, and Ctrl-C is 130, after the checkpoint is saved.
func TestExitStatus(t *testing.T) {
	for _, c := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{}, 2, "cot: -out DIR is required\nRun 'cot -h' for the flags."},
		{[]string{"-out", t.TempDir(), "-preset", "huge"}, 2, `unknown preset "huge"`},
		{[]string{"-out", t.TempDir(), "-format", "cot"}, 2, `unknown format "cot"`},
		{[]string{"-out", t.TempDir(), "extra"}, 2, "unexpected arguments"},
		{[]string{"-nosuch"}, 2, "flag provided but not defined: -nosuch"},
		{[]string{"-steps", "x"}, 2, `invalid value "x" for flag -steps`},
		{[]string{"-h"}, 0, "-preset string"},
	} {
		var stdout, stderr bytes.Buffer
		status := status(context.Background(), c.args, &stdout, &stderr)
		if status != c.status || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("cot %q: status %d, stderr %q; want status %d and %q", c.args, status, stderr.String(), c.status, c.want)
		}
	}

	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // as Ctrl-C does, before the first step
	var stdout, stderr bytes.Buffer
	if status := status(ctx, []string{"-out", dir, "-preset", "tiny", "-format", "direct", "-quiet"}, &stdout, &stderr); status != 130 {
		t.Errorf("interrupted: status %d, stderr %q; want 130", status, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "direct.ckpt")); err != nil {
		t.Errorf("interrupted: no checkpoint: %v", err)
	}
}
