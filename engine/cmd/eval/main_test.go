package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/train"
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

// TestEvalRepeat checks -repeat against its definition: the bits for the
// text followed by itself, minus the bits for the text alone, per byte.
func TestEvalRepeat(t *testing.T) {
	dir := t.TempDir()
	src := "// Max returns the larger of a and b.\nfunc Max(a, b int) int {\n\tif a > b {\n\t\treturn a\n\t}\n\treturn b\n}\n"
	path := filepath.Join(dir, "x.go")
	os.WriteFile(path, []byte(src), 0o644)
	var out bytes.Buffer
	if err := run([]string{"-repeat", "-text", path}, &out, &out); err != nil {
		t.Fatal(err)
	}
	m, tok, err := engine.Default()
	if err != nil {
		t.Fatal(err)
	}
	once, _ := train.Evaluate(m, tok, src)
	twice, _ := train.Evaluate(m, tok, src+src)
	want := fmt.Sprintf("second copy:    %.4f bits per byte", (twice.Nats-once.Nats)/math.Ln2/float64(len(src)))
	if !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
	if strings.Contains(out.String(), "more than the context") {
		t.Errorf("a short text's two copies fit the context, but the output says they do not:\n%s", out.String())
	}

	long := strings.Repeat(src, 12) // two copies: some 900 tokens, more than 512
	os.WriteFile(path, []byte(long), 0o644)
	out.Reset()
	if err := run([]string{"-repeat", "-text", path}, &out, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "more than the context of 512") {
		t.Errorf("a long text's two copies exceed the context, but the output does not say so:\n%s", out.String())
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
		{[]string{}, "nothing to evaluate: give -text FILE"},
		{[]string{filepath.Join(dir, "missing.go")}, "no such file"},
		{[]string{dir + "/sub"}, "no such file"},
		{[]string{empty, empty}, "all 2 files are empty"},
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

func TestEvalManyFiles(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "pkg", "inner"), 0o755)
	a := "package a\n\n// Max returns the larger of x and y.\nfunc Max(x, y int) int {\n\tif x > y {\n\t\treturn x\n\t}\n\treturn y\n}\n"
	b := "package inner\n\nimport \"fmt\"\n\nfunc Hello() { fmt.Println(\"hello\") }\n"
	os.WriteFile(filepath.Join(dir, "pkg", "a.go"), []byte(a), 0o644)
	os.WriteFile(filepath.Join(dir, "pkg", "inner", "b.go"), []byte(b), 0o644)
	os.WriteFile(filepath.Join(dir, "pkg", "notes.txt"), []byte("not Go"), 0o644)
	var out bytes.Buffer
	if err := run([]string{filepath.Join(dir, "pkg")}, &out, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"a.go", "b.go", "total (2 files)", "gzip -9 bits/byte", "of 2 files"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "notes.txt") {
		t.Errorf("a directory stands for its .go files only, but notes.txt was scored:\n%s", s)
	}
	// The total is the bytes-weighted mean: total bits over total bytes.
	var one, two bytes.Buffer
	run([]string{"-text", filepath.Join(dir, "pkg", "a.go")}, &one, &one)
	run([]string{"-text", filepath.Join(dir, "pkg", "inner", "b.go")}, &two, &two)
	bpb := func(s string) float64 {
		var v float64
		i := strings.Index(s, "bits per byte:")
		fmt.Sscan(strings.TrimSpace(s[i+len("bits per byte:"):]), &v)
		return v
	}
	want := (bpb(one.String())*float64(len(a)) + bpb(two.String())*float64(len(b))) / float64(len(a)+len(b))
	var got float64
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, "total (2 files)") {
			f := strings.Fields(line)
			fmt.Sscan(f[3], &got)
		}
	}
	if math.Abs(got-want) > 2e-4 {
		t.Errorf("total bits/byte %.4f, want the bytes-weighted mean %.4f", got, want)
	}
}
