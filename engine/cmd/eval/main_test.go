package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEvalDefaultModel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.go")
	src := "package x\n\n// Sum adds up the numbers.\nfunc Sum(xs []int) int {\n\ttotal := 0\n\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n\treturn total\n}\n"
	os.WriteFile(path, []byte(src), 0o644)
	for _, model := range []string{"default", "draft"} {
		var out bytes.Buffer
		if err := run([]string{"-model", model, "-text", path}, &out, &out); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "bits per byte:") || !strings.Contains(out.String(), "nats per token:") {
			t.Errorf("%s: output lacks the measures:\n%s", model, out.String())
		}
	}
}

func TestEvalBadInput(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{}, "-text FILE is required"},
		{[]string{"-text", filepath.Join(dir, "missing.txt")}, "no such file"},
		{[]string{"-text", empty}, "empty"},
		{[]string{"-model", filepath.Join(dir, "nope.bin"), "-text", empty}, "empty"},
		{[]string{"-model", empty, "-text", "main.go"}, "shorter than"},
	} {
		var out bytes.Buffer
		err := run(c.args, &out, &out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error containing %q", c.args, err, c.want)
		}
	}
}

func TestEvalSampledFunctions(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-funcs", "3", "-show", "1"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "--- sample 1") || !strings.Contains(s, "of 3 sampled functions parse") {
		t.Errorf("unexpected output:\n%s", s)
	}
	if strings.Contains(s, "--- sample 2") {
		t.Error("-show 1 printed more than one sample")
	}
}
