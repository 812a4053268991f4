package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// referenceModel returns the stories260K fixtures kept beside the checkout
// (../shared/models from the project root). They must be there in CI.
func referenceModel(t *testing.T) (model, tokenizer string) {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "..", "shared", "models")
	model, tokenizer = filepath.Join(dir, "stories260K.bin"), filepath.Join(dir, "tok512.bin")
	if _, err := os.Stat(model); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("reference model missing in CI: %v", err)
		}
		t.Skipf("reference model not present: %v", err)
	}
	return model, tokenizer
}

// buildCommand compiles the command once per test into a temporary folder.
func buildCommand(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "generate")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// The published greedy text of stories260K begins like this (see
// ../shared/models/README.md).
const publishedStart = "Once upon a time, there was a little girl named Lily. She loved to play outside in the park."

func TestCommandJSONAndText(t *testing.T) {
	model, tokenizer := referenceModel(t)
	bin := buildCommand(t)

	// -json: one object per token, then the summary.
	cmd := exec.Command(bin, "-model", model, "-tokenizer", tokenizer, "-n", "64", "-temperature", "0", "-repeat-penalty", "1", "-json", "-logprobs", "3")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	var tokens []tokenJSON
	var summary *summaryJSON
	var text strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if summary != nil {
			t.Fatalf("output continues after the summary: %s", sc.Text())
		}
		var kind struct{ Type string }
		if err := json.Unmarshal(sc.Bytes(), &kind); err != nil {
			t.Fatalf("line is not JSON: %v: %s", err, sc.Text())
		}
		switch kind.Type {
		case "token":
			var tok tokenJSON
			if err := json.Unmarshal(sc.Bytes(), &tok); err != nil {
				t.Fatal(err)
			}
			if len(tok.TopLogProbs) != 3 || tok.LogProb > 0 || tok.TopLogProbs[0].LogProb < tok.LogProb {
				t.Fatalf("token %+v: want a log-probability ≤ 0 and 3 alternatives, the first at least as likely", tok)
			}
			tokens = append(tokens, tok)
			text.WriteString(tok.Text)
		case "summary":
			summary = new(summaryJSON)
			if err := json.Unmarshal(sc.Bytes(), summary); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("unknown object type %q: %s", kind.Type, sc.Text())
		}
	}
	if summary == nil {
		t.Fatalf("no summary in:\n%s", out)
	}
	if summary.FinishReason != "length" || summary.GeneratedTokens != 64 || len(tokens) != 64 || summary.PromptTokens != 1 {
		t.Fatalf("summary %+v after %d tokens; want finish length after 64 tokens and a 1-token prompt", *summary, len(tokens))
	}
	if summary.DecodeMS <= 0 || summary.DecodeTokensPerSecond <= 0 || summary.PrefillMS <= 0 {
		t.Fatalf("summary %+v lacks timings", *summary)
	}
	if text.String() != summary.Text || !strings.HasPrefix(summary.Text, publishedStart) {
		t.Fatalf("token texts %q, summary text %q; want both to start with the published %q", text.String(), summary.Text, publishedStart)
	}

	// Text mode prints the prompt and the continuation; the speed goes to stderr.
	cmd = exec.Command(bin, "-model", model, "-tokenizer", tokenizer, "-n", "64", "-temperature", "0", "-repeat-penalty", "1", "-prompt", "Once upon a time")
	stderr.Reset()
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if !strings.HasPrefix(string(out), "Once upon a time, there was") || !strings.HasSuffix(string(out), "\n") {
		t.Fatalf("text mode printed %q", out)
	}
	if !strings.Contains(stderr.String(), "tok/s") {
		t.Fatalf("no speed on stderr: %q", stderr.String())
	}
}

func TestCommandExitStatus(t *testing.T) {
	model, tokenizer := referenceModel(t)
	bin := buildCommand(t)
	for _, c := range []struct {
		args   []string
		status int
		want   string // in stderr
	}{
		{[]string{"-model", model, "-tokenizer", tokenizer, "-topp", "1.5"}, 2, "-topp = 1.5"},
		{[]string{"-model", model, "-temperature", "-1"}, 2, "-temperature = -1"},
		{[]string{"-model", model, "-minp", "2"}, 2, "-minp = 2"},
		{[]string{"-model", model, "-stop", "x", "-stop", ""}, 2, `-stop = ""`},
		{[]string{"-model", model, "-repeat-penalty", "0"}, 2, "-repeat-penalty = 0"},
		{[]string{"-model", model, "-n", "-5"}, 2, "-n = -5"},
		{[]string{"-model", model, "-penalty-window", "-2"}, 2, "-penalty-window = -2"},
		{[]string{"-no-such-flag"}, 2, "-no-such-flag"},
		{[]string{"-prompt", "hi", "-tokenizer", tokenizer}, 2, "-tokenizer"},
		{[]string{"-model", model, "-tokenizer", tokenizer, "-beam", "-3"}, 2, "-beam = -3"},
		{[]string{"-model", "missing.bin"}, 1, "missing.bin"},
		{[]string{"-model", model}, 1, "tokenizer.bin"},
		{[]string{"-model", model, "-tokenizer", model}, 1, model},
	} {
		cmd := exec.Command(bin, c.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		status := 0
		if ee, ok := err.(*exec.ExitError); ok {
			status = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if status != c.status || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("generate %q: status %d, stderr %q; want status %d and %q", c.args, status, stderr.String(), c.status, c.want)
		}
	}
}

// writeRecorder remembers every write, to see the text arrive in pieces.
type writeRecorder struct{ writes []string }

func (w *writeRecorder) Write(p []byte) (int, error) {
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

func TestTextModeStreamsEachPiece(t *testing.T) {
	model, tokenizer := referenceModel(t)
	var out writeRecorder
	var stderr bytes.Buffer
	status := run([]string{"-model", model, "-tokenizer", tokenizer, "-n", "30", "-temperature", "0", "-repeat-penalty", "1", "-stop", "Lily"}, &out, &stderr)
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr.String())
	}
	// Each released piece is written as it is made, and the stop sequence
	// is never shown.
	if len(out.writes) < 5 {
		t.Fatalf("output came in %d writes, want one per token: %q", len(out.writes), out.writes)
	}
	got := strings.Join(out.writes, "")
	want := publishedStart[:strings.Index(publishedStart, "Lily")] + "\n"
	if got != want {
		t.Fatalf("printed %q, want %q", got, want)
	}
	if !strings.Contains(stderr.String(), `stopped: the text reached the stop sequence "Lily" (left out of the text) after`) {
		t.Fatalf("stderr %q does not report the stop", stderr.String())
	}

	out.writes = nil
	status = run([]string{"-model", model, "-tokenizer", tokenizer, "-n", "30", "-temperature", "0", "-repeat-penalty", "1", "-stop", "Lily", "-include-stop"}, &out, &stderr)
	if got, want := strings.Join(out.writes, ""), publishedStart[:strings.Index(publishedStart, "Lily")+4]+"\n"; status != 0 || got != want {
		t.Fatalf("with -include-stop: status %d, printed %q, want %q", status, got, want)
	}
}

// TestBeamHonoursTimeout checks that -timeout stops a beam search and that
// the command still prints what it found, with finish reason "deadline".
func TestBeamHonoursTimeout(t *testing.T) {
	model, tokenizer := referenceModel(t)
	bin := buildCommand(t)
	cmd := exec.Command(bin, "-model", model, "-tokenizer", tokenizer, "-beam", "4", "-n", "250", "-timeout", "20ms", "-json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var summary summaryJSON
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &summary); err != nil {
		t.Fatalf("last line is not the summary: %v: %s", err, lines[len(lines)-1])
	}
	if summary.FinishReason != "deadline" || summary.GeneratedTokens >= 250 {
		t.Fatalf("summary %+v: want finish reason deadline before 250 tokens (a width-4 search of 250 steps takes far longer than 20ms)", summary)
	}
}

// TestLogProbsOnlyForJSON: the text output shows no log-probabilities, so
// it asks the engine for none; -json shows them, so it does.
func TestLogProbsOnlyForJSON(t *testing.T) {
	for _, c := range []struct {
		args []string
		skip bool
	}{
		{[]string{"-prompt", "x"}, true},
		{[]string{"-prompt", "x", "-temperature", "0"}, true},
		{[]string{"-prompt", "x", "-json"}, false},
		{[]string{"-prompt", "x", "-json", "-logprobs", "2"}, false},
	} {
		cfg, err := parseFlags(c.args, io.Discard)
		if err != nil {
			t.Fatalf("parseFlags(%q): %v", c.args, err)
		}
		if got := cfg.options().NoLogProbs; got != c.skip {
			t.Errorf("generate %q: options().NoLogProbs = %v, want %v", c.args, got, c.skip)
		}
	}
}
