package main

import (
	"bytes"
	"context"
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/engine/train"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
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
	m, tok, err := models.Default()
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

// TestEvalStops runs -stops on a corpus of three files and checks the
// table against the measures it reports: the training documents' sizes
// from train.DocumentSizes, a sample's length from sampleToEnd.
func TestEvalStops(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.go": "package a\n\n// Max returns the larger of x and y.\nfunc Max(x, y int) int {\n\tif x > y {\n\t\treturn x\n\t}\n\treturn y\n}\n\nfunc min(x, y int) int { return -Max(-x, -y) }\n",
		"b.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n\tfmt.Println(\"world\")\n}\n",
		"c.go": "package c\n\nfunc C() {}\n",
	}
	for name, text := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	var out bytes.Buffer
	if err := run([]string{"-stops", "1", "-prompt", "func main() {", "-corpus", dir}, &out, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	row := func(name string) []string {
		for _, line := range strings.Split(s, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), name) {
				return strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), name))
			}
		}
		t.Fatalf("no row %q in:\n%s", name, s)
		return nil
	}

	corpus, err := train.LoadGoSource(dir, train.SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	sizes, err := train.DocumentSizes(context.Background(), corpus.Train, tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tokens []int
	oneLine := 0
	for _, d := range sizes {
		tokens = append(tokens, d.Tokens)
		if d.Lines <= 1 {
			oneLine++
		}
	}
	sum := train.Summarize(tokens)
	if got, want := strings.Join(row("training documents")[:3], " "), fmt.Sprintf("%d %d %d", sum.N, sum.Q1, sum.Median); got != want {
		t.Errorf("training documents: count, q1 and median %q, want %q:\n%s", got, want, s)
	}
	if oneLine == 0 {
		t.Fatal("the test corpus has no document of one line (min, a package clause)")
	}
	if got, want := strings.Join(row("training documents")[9:11], " "), fmt.Sprintf("%d (%.1f%%)", oneLine, 100*float64(oneLine)/float64(sum.N)); got != want {
		t.Errorf("training documents of one line: %q, want %q:\n%s", got, want, s)
	}
	if got := row(`starting with the prompt`)[0]; got != "1" {
		t.Errorf("%s documents start with the prompt, want 1 (main in b.go):\n%s", got, s)
	}

	prompt, _ := tok.Encode("func main() {", false, false)
	_, n, ended, err := sampleToEnd(context.Background(), m, tok, "func main() {", decoding.Options{Temperature: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint(len(prompt) + n)
	if got := row("samples, temperature 1"); got[0] != "1" || got[2] != want {
		t.Errorf("samples at temperature 1: count %s, median %s tokens; want 1 and %s:\n%s", got[0], got[2], want, s)
	}
	if ended != strings.HasSuffix(strings.Join(row("samples, temperature 1"), " "), "0 (0.0%)") {
		t.Errorf("the sample ended: %v, but the table's last column says otherwise:\n%s", ended, s)
	}
}

// TestSampleToEnd checks the two ways a text ends: the model writes
// end-of-text (not counted), or the context fills up (the text, with the
// prompt, then has as many tokens as the context has positions: BOS fills
// the first, and the last token is generated but never fed back).
func TestSampleToEnd(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	text, n, ended, err := sampleToEnd(context.Background(), m, tok, "func main() {", decoding.Options{})
	if err != nil || !ended || n == 0 || text == "" {
		t.Errorf("greedy from \"func main() {\": %q, %d tokens, ended %v, %v; want a short text that the model ends", text, n, ended, err)
	}
	long := strings.Repeat("x := 1\n", 126) // 505 tokens with BOS
	ids, _ := tok.Encode(long, true, false)
	if len(ids) >= m.Config.SeqLen {
		t.Fatalf("the long prompt is %d tokens with BOS; it must leave room in the context of %d", len(ids), m.Config.SeqLen)
	}
	_, n, ended, err = sampleToEnd(context.Background(), m, tok, long, decoding.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(ids) - 1 + n; !ended && got != m.Config.SeqLen {
		t.Errorf("a text cut by the full context has %d tokens with the prompt, want %d (the context)", got, m.Config.SeqLen)
	}
	if got := len(ids) - 1 + n; ended && got >= m.Config.SeqLen {
		t.Errorf("a text the model ended has %d tokens with the prompt, want fewer than %d", got, m.Config.SeqLen)
	}
}

// TestStopSettingsAreGenerateDefaults keeps -stops' second setting equal to
// the generate command's defaults, read from its source.
func TestStopSettingsAreGenerateDefaults(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../generate/main.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Values) == len(vs.Names) {
			for i, name := range vs.Names {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
					consts[name.Name] = lit.Value
				}
			}
		}
		return true
	})
	for name, want := range map[string]string{
		"defaultTemperature":   fmt.Sprint(generateTemperature),
		"defaultTopP":          fmt.Sprint(generateTopP),
		"defaultRepeatPenalty": fmt.Sprint(generateRepeatPenalty),
		"defaultPenaltyWindow": fmt.Sprint(generatePenaltyWindow),
	} {
		if consts[name] != want {
			t.Errorf("generate's %s is %q, but -stops samples with %s: keep them equal", name, consts[name], want)
		}
	}
}
