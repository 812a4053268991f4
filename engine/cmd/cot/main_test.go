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

func TestBadArguments(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{}, "-out DIR is required"},
		{[]string{"-out", t.TempDir(), "-preset", "huge"}, `unknown preset "huge"`},
		{[]string{"-out", t.TempDir(), "-format", "cot"}, `unknown format "cot"`},
		{[]string{"-out", t.TempDir(), "extra"}, "unexpected arguments"},
	} {
		var out bytes.Buffer
		err := run(context.Background(), c.args, &out, &out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("run(%q) error = %v; want one saying %q", c.args, err, c.want)
		}
	}
}
