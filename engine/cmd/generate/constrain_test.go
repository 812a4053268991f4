package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
)

const (
	citySchema = "../../constrain/testdata/city.json"
	selectGBNF = "../../constrain/testdata/select.gbnf"
)

// TestBrokenLanguageRefused: a broken schema, regular expression or
// grammar is a usage error (status 2) that names the flag, the file and
// the line and column, found before the model is loaded (here a model
// that does not exist).
func TestBrokenLanguageRefused(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	schema := write("bad.json", "{\"type\": \"object\",\n  \"properties\": {\"a\": {\"type\": \"strin\"}}}")
	notJSON := write("broken.json", "{\"type\": \"object\",\n  \"properties\": {\"a\": }")
	grammar := write("bad.gbnf", "root ::= item+\nitem ::= \"a\" undefined\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-json-schema", schema}, "-json-schema " + schema + ": line 2, column 32: unknown type"},
		{[]string{"-json-schema", notJSON}, "-json-schema " + notJSON + ": line 2, column 23: "},
		{[]string{"-regex", "ab(c"}, `-regex "ab(c": line 1, column 1: missing closing )`},
		{[]string{"-grammar", grammar}, "-grammar " + grammar + ": line 2, column 14: rule \"undefined\" is used but never defined"},
		{[]string{"-regex", "a", "-grammar", grammar}, "-regex and -grammar do not go together"},
		{[]string{"-json-schema", ""}, "-json-schema is empty"},
		{[]string{"-regex", "a", "-beam", "2", "-temperature", "0"}, "-regex with -beam"},
		{[]string{"-regex", "a", "-speculate", "2"}, "-regex with speculative decoding"},
	} {
		status, out, stderr := runGenerate(append(c.args, "-model", filepath.Join(dir, "missing.gguf"), "-prompt", "x")...)
		if status != 2 || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("generate %q: status %d, stdout %q, stderr %q; want status 2 and %q", c.args, status, out, stderr, c.want)
		}
	}
	// A file that cannot be read is status 1, like a missing model.
	missing := filepath.Join(dir, "missing.json")
	if status, _, stderr := runGenerate("-json-schema", missing); status != 1 || !strings.Contains(stderr, missing) {
		t.Errorf("-json-schema %s: status %d, stderr %q; want status 1 naming the file", missing, status, stderr)
	}
}

// TestRegexOutput: with -regex the built-in model writes a match of the
// whole expression, and says why it stopped in words; stdout is the
// prompt and the match, without a final newline.
func TestRegexOutput(t *testing.T) {
	re := `[0-9]{3}-[0-9]{4}`
	full := regexp.MustCompile(`^(?:` + re + `)$`)
	for seed := 1; seed <= 4; seed++ {
		status, out, stderr := runGenerate("-prompt", "// Call ", "-regex", re, "-seed", fmt.Sprint(seed))
		if status != 0 {
			t.Fatalf("seed %d: status %d, stderr %q", seed, status, stderr)
		}
		text, ok := strings.CutPrefix(out, "// Call ")
		if !ok || !full.MatchString(text) {
			t.Errorf("seed %d: stdout %q is not the prompt and a match of %s", seed, out, re)
		}
		if want := "\nstopped: the text is complete: nothing may follow it in the language of -regex \"[0-9]{3}-[0-9]{4}\", after "; !strings.HasPrefix(stderr, want) {
			t.Errorf("seed %d: stderr %q, want it to start with %q", seed, stderr, want)
		}
	}
}

// TestConstrainedTextAfterSummary: with stdout and stderr on one pipe the
// summary still starts on a line of its own, the newline coming from
// stderr; with stdout in a file of its own, the file holds the text
// alone.
func TestConstrainedTextAfterSummary(t *testing.T) {
	bin := buildCommand(t)
	args := []string{"-prompt", "// Call ", "-regex", `[0-9]{3}-[0-9]{4}`, "-seed", "2"}
	cmd := exec.Command(bin, args...)
	var both bytes.Buffer
	cmd.Stdout, cmd.Stderr = &both, &both
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, both.String())
	}
	if !regexp.MustCompile(`^// Call [0-9]{3}-[0-9]{4}\nstopped: `).Match(both.Bytes()) {
		t.Errorf("one pipe: %q", both.String())
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stderr bytes.Buffer
	cmd = exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	out, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^// Call [0-9]{3}-[0-9]{4}$`).Match(out) || !strings.HasPrefix(stderr.String(), "stopped: ") {
		t.Errorf("stdout to a file: %q, stderr %q", out, stderr.String())
	}
}

// compiledSchema loads a schema file with the jsonschema library.
func compiledSchema(t *testing.T, path string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	s, err := c.Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestChatJSONSchemaSmolLM2 is the command of the issue: SmolLM2 asked
// for a city as JSON with -json-schema city.json. For every seed, stdout
// is exactly one JSON value that validates against the schema, and the
// same bytes as the text the -json summary reports.
func TestChatJSONSchemaSmolLM2(t *testing.T) {
	testmodel.Path(t, testmodel.SmolLM2)
	valid := compiledSchema(t, citySchema)
	seeds := 5
	if testing.Short() {
		seeds = 2
	}
	for seed := 1; seed <= seeds; seed++ {
		args := []string{"-model", "smollm2", "-chat", "Describe a city as JSON.", "-json-schema", citySchema, "-temperature", "0.9", "-seed", fmt.Sprint(seed)}
		status, out, stderr := runGenerate(args...)
		if status != 0 {
			t.Fatalf("seed %d: status %d, stderr %q", seed, status, stderr)
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
		if err != nil {
			t.Errorf("seed %d: stdout %q is not JSON: %v", seed, out, err)
			continue
		}
		if err := valid.Validate(v); err != nil {
			t.Errorf("seed %d: stdout %q does not validate: %v", seed, out, err)
		}
		if strings.TrimSpace(out) != out {
			t.Errorf("seed %d: stdout %q has white space around the value", seed, out)
		}
		t.Logf("seed %d: %s", seed, out)

		status, js, stderr := runGenerate(append(args, "-json")...)
		if status != 0 {
			t.Fatalf("seed %d -json: status %d, stderr %q", seed, status, stderr)
		}
		var sum summaryJSON
		sc := bufio.NewScanner(strings.NewReader(js))
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"type":"summary"`) {
				if err := json.Unmarshal(sc.Bytes(), &sum); err != nil {
					t.Fatal(err)
				}
			}
		}
		if sum.Text != out || sum.FinishReason != "constraint" {
			t.Errorf("seed %d: -json reports %q (%s), stdout was %q", seed, sum.Text, sum.FinishReason, out)
		}
	}
}

// selectSQL is select.gbnf written as a Go regular expression: its rules
// do not recurse, so the language is regular.
var selectSQL = func() *regexp.Regexp {
	name := `[a-z_][a-z0-9_]{0,15}`
	operand := `(?:-?[0-9]{1,9}(?:\.[0-9]{1,4})?|'[^'\n]{0,24}'|` + name + `)`
	cond := name + ` (?:=|<>|<|<=|>|>=) ` + operand
	return regexp.MustCompile(`^SELECT (?:\*|` + name + `(?:, ` + name + `){0,7}) FROM ` + name +
		`(?: WHERE ` + cond + `(?:(?: AND | OR )` + cond + `){0,3})?` +
		`(?: ORDER BY ` + name + `(?: ASC| DESC)?)?` +
		`(?: LIMIT [1-9][0-9]{0,3})?;$`)
}()

// TestGrammarSelectSmolLM2: with -grammar select.gbnf, SmolLM2 writes a
// SELECT of the grammar, greedy and sampled.
func TestGrammarSelectSmolLM2(t *testing.T) {
	testmodel.Path(t, testmodel.SmolLM2)
	for _, sampling := range [][]string{{"-temperature", "0"}, {"-seed", "1"}, {"-seed", "2", "-temperature", "1.2"}} {
		args := append([]string{"-model", "smollm2", "-chat", "Write a SQL query for the users older than 30.", "-grammar", selectGBNF}, sampling...)
		status, out, stderr := runGenerate(args...)
		if status != 0 {
			t.Fatalf("%q: status %d, stderr %q", sampling, status, stderr)
		}
		if !selectSQL.MatchString(out) {
			t.Errorf("%q: %q is not a SELECT of select.gbnf (%s)", sampling, out, stderr)
		}
		t.Logf("%q: %s", sampling, out)
	}
}

// TestTooAmbiguousGrammar: a grammar too ambiguous to follow ends the
// command with status 1 and a message that says so and where.
func TestTooAmbiguousGrammar(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ambiguous.gbnf")
	src := "root ::= (r r | r)*\nr ::= ([a-z ] r [a-m ] | [a-z ] r [h-z ] | [a-z ] r | [a-z ])*\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	status, _, stderr := runGenerate("-prompt", "Once upon", "-grammar", path, "-n", "40", "-seed", "1")
	if want := `grammar too ambiguous: more than 4096 parse stacks after byte `; status != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, `rule "r"`) {
		t.Errorf("status %d, stderr %q; want status 1 and %q naming rule \"r\"", status, stderr, want)
	}
}
