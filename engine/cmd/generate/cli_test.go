package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/internal/simd"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
	"github.com/tokenbytoken/course/engine/models"
)

// TestSummaryFollowsText runs the command with stdout and stderr on one
// pipe, as in a terminal or `2>&1 | less`: the text comes first, whole and
// ending with a newline, and only then why it stopped and how fast it ran.
func TestSummaryFollowsText(t *testing.T) {
	bin := buildCommand(t)
	for _, args := range [][]string{
		{"-prompt", "func ", "-n", "20", "-temperature", "0"},   // ends at -n, mid-line
		{"-prompt", "func main() {", "-temperature", "0"},       // ends at end-of-text
		{"-prompt", "// Copy copies", "-n", "40", "-seed", "3"}, // sampled
	} {
		cmd := exec.Command(bin, args...)
		var both bytes.Buffer
		cmd.Stdout, cmd.Stderr = &both, &both // one pipe, in the order written
		if err := cmd.Run(); err != nil {
			t.Fatalf("%q: %v\n%s", args, err, both.String())
		}
		out := both.String()
		i := strings.Index(out, "stopped: ")
		if i < 0 {
			t.Fatalf("%q: no 'stopped:' line in\n%s", args, out)
		}
		text, summary := out[:i], out[i:]
		if !strings.HasPrefix(text, args[1]) || !strings.HasSuffix(text, "\n") {
			t.Errorf("%q: the text before the summary should start with the prompt and end with a newline: %q", args, text)
		}
		lines := strings.Split(strings.TrimSuffix(summary, "\n"), "\n")
		if len(lines) < 2 || !strings.HasPrefix(lines[1], "speed: ") {
			t.Errorf("%q: want the summary as 'stopped:' then 'speed:' lines, got %q", args, summary)
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, "stopped: ") && !strings.HasPrefix(l, "speed: ") && !strings.HasPrefix(l, "seed: ") {
				t.Errorf("%q: text after the summary: %q", args, l)
			}
		}
	}
}

// TestSummaryFollowsTextInProcess checks the same with one writer for both
// streams inside the process, and that the text reaches the writer before
// the summary does.
func TestSummaryFollowsTextInProcess(t *testing.T) {
	var both writeRecorder
	if status := run([]string{"-prompt", "func ", "-n", "20", "-temperature", "0"}, &both, &both); status != 0 {
		t.Fatalf("status %d: %q", status, both.writes)
	}
	out := strings.Join(both.writes, "")
	i := strings.Index(out, "stopped: ")
	if i < 0 || !strings.HasSuffix(out[:i], "\n") || strings.Count(out[i:], "\n") < 2 {
		t.Fatalf("want the text, a newline, then the summary lines; got %q", out)
	}
}

func TestFinishInWords(t *testing.T) {
	cfg := &config{maxNew: 100, timeout: 2 * time.Second}
	stats := func(prompt, n int) *decoding.Stats {
		return &decoding.Stats{PromptTokens: prompt, GeneratedTokens: n, StopSequence: "\n}\n"}
	}
	for _, c := range []struct {
		step decoding.Step
		want string
	}{
		{decoding.Step{Finish: decoding.FinishEOS, Stats: stats(6, 9)}, "the model wrote end-of-text as its 9th token"},
		{decoding.Step{Finish: decoding.FinishEOS, Stats: stats(6, 1)}, "the model wrote end-of-text as its 1st token"},
		{decoding.Step{Finish: decoding.FinishEOS, Stats: &decoding.Stats{PromptTokens: 34, GeneratedTokens: 15, EndToken: "<|im_end|>"}}, "the model wrote its end token <|im_end|> as its 15th token"},
		{decoding.Step{Finish: decoding.FinishLength, Stats: stats(6, 100)}, "100 tokens written, the limit set by -n 100"},
		{decoding.Step{Finish: decoding.FinishContext, Stats: stats(12, 500)}, "the model's context is full after 500 tokens: its 512 positions hold the 12 tokens of the prompt and the 500 new ones"},
		{decoding.Step{Finish: decoding.FinishContext, Stats: stats(12, 501)}, "the model's context is full after 501 tokens: its 512 positions hold the 12 tokens of the prompt and the first 500 new ones; the last new token needs none, as it is never run"},
		{decoding.Step{Finish: decoding.FinishStop, Stats: stats(6, 40)}, `the text reached the stop sequence "\n}\n" (left out of the text) after 40 tokens`},
		{decoding.Step{Finish: decoding.FinishDeadline, Stats: stats(6, 3)}, "the -timeout of 2s ran out after 3 tokens"},
		{decoding.Step{Finish: decoding.FinishCancelled, Stats: stats(6, 0)}, "cancelled after 0 tokens"},
		{decoding.Step{Finish: decoding.FinishConstraint, Stats: stats(6, 12)}, `the text is complete: nothing may follow it in the language of -regex "[0-9]+", after 12 tokens`},
		{decoding.Step{Finish: decoding.FinishUnsatisfiable, Stats: stats(6, 1)}, `no token of the model can continue the text in the language of -regex "[0-9]+", after 1 token`},
	} {
		cfg.regex = "[0-9]+"
		if got := describeFinish(c.step, cfg, 512); got != c.want {
			t.Errorf("%s: got %q, want %q", c.step.Finish, got, c.want)
		}
	}

	// The command says it in words: the end-of-text example of the README.
	status, out, stderr := runGenerate("-prompt", "func main() {", "-temperature", "0")
	if status != 0 || !strings.HasPrefix(out, "func main() {") {
		t.Fatalf("status %d, stdout %q, stderr %q", status, out, stderr)
	}
	if !strings.HasPrefix(stderr, "stopped: the model wrote end-of-text as its ") {
		t.Errorf("stderr %q does not say that the model ended the text", stderr)
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 9: "9th", 10: "10th", 11: "11th", 12: "12th", 13: "13th",
		21: "21st", 22: "22nd", 23: "23rd", 101: "101st", 111: "111th", 112: "112th", 1000: "1000th"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestStopAndSpeedCountAlike runs the built-in model to each stop reason
// that is cheap to reach (and SmolLM2 to its own end token, when it is
// installed) and checks that the "stopped:" line gives the same number of
// new tokens as the "speed:" line: both count every token the model
// generated, the end token included, so that a learner reading them side
// by side sees one number, not two that differ by one. -json's summary
// says the same in words and in generated_tokens.
func TestStopAndSpeedCountAlike(t *testing.T) {
	stopCount := []*regexp.Regexp{
		regexp.MustCompile(`as its (\d+)(?:st|nd|rd|th) token$`),
		regexp.MustCompile(`^(\d+) tokens? written`),
		regexp.MustCompile(`full after (\d+) tokens?:`),
		regexp.MustCompile(`after (\d+) tokens?$`),
	}
	speedCount := regexp.MustCompile(`, (\d+) new tokens? in `)
	for _, c := range []struct {
		finish string
		args   []string
	}{
		{"eos", []string{"-prompt", "func main() {", "-temperature", "0"}},
		{"eos", []string{"-prompt", "func", "-beam", "2"}},
		{"eos", []string{"-prompt", "func", "-temperature", "0", "-speculate", "2"}},
		{"eos", []string{"-model", "smollm2", "-chat", "Name three fruits.", "-temperature", "0"}}, // its end token <|im_end|>
		{"length", []string{"-prompt", "func ", "-n", "20", "-temperature", "0"}},
		{"stop", []string{"-prompt", "func ", "-n", "40", "-temperature", "0", "-stop", "{"}},
		{"context", []string{"-prompt", "func ", "-n", "0", "-temperature", "1.5", "-seed", "1"}},
		{"constraint", []string{"-prompt", "func ", "-regex", "[0-9]{3}", "-seed", "2"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			if slices.Contains(c.args, "smollm2") {
				testmodel.Path(t, testmodel.SmolLM2)
			}
			status, out, stderr := runGenerate(c.args...)
			if status != 0 {
				t.Fatalf("status %d, stdout %q, stderr %q", status, out, stderr)
			}
			var stopped, speed string
			for l := range strings.Lines(stderr) {
				l = strings.TrimSuffix(l, "\n")
				if s, ok := strings.CutPrefix(l, "stopped: "); ok {
					stopped = s
				}
				if strings.HasPrefix(l, "speed: ") {
					speed = l
				}
			}
			var inStop string
			for _, re := range stopCount {
				if m := re.FindStringSubmatch(stopped); m != nil {
					inStop = m[1]
					break
				}
			}
			m := speedCount.FindStringSubmatch(speed)
			if inStop == "" || m == nil {
				t.Fatalf("no token count in the summary\n%s", stderr)
			}
			if inStop != m[1] {
				t.Errorf("the stop line counts %s tokens, the speed line %s\n%s", inStop, m[1], stderr)
			}

			status, out, stderr = runGenerate(append([]string{"-json"}, c.args...)...)
			if status != 0 {
				t.Fatalf("-json: status %d, stderr %q", status, stderr)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			var sum summaryJSON
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
				t.Fatalf("-json: the last line is not a summary: %v", err)
			}
			if sum.Stopped != stopped || strconv.Itoa(sum.GeneratedTokens) != inStop {
				t.Errorf("-json: summary with %d generated tokens, stopped %q; want %s and the text output's %q",
					sum.GeneratedTokens, sum.Stopped, inStop, stopped)
			}
			// Which reason a sampled run reaches depends on the last bits
			// of the products, which only the AVX2/FMA kernels pin down.
			if sum.FinishReason != c.finish && simd.Available {
				t.Errorf("finish %q, want %q: the case no longer checks that stop reason", sum.FinishReason, c.finish)
			}
		})
	}
}

// TestSpeculateAloneUsesBuiltInDraft: with the built-in model, -speculate
// needs no -draft; the built-in draft proposes and greedy text is the
// target's own.
func TestSpeculateAloneUsesBuiltInDraft(t *testing.T) {
	base := []string{"-prompt", "// Package sort", "-n", "40", "-temperature", "0", "-repeat-penalty", "1"}
	status, want, stderr := runGenerate(base...)
	if status != 0 {
		t.Fatalf("greedy: status %d, stderr %q", status, stderr)
	}
	status, got, stderr := runGenerate(append(base, "-speculate", "4")...)
	if status != 0 || got != want {
		t.Fatalf("-speculate 4: status %d, stderr %q\n got %q\nwant %q", status, stderr, got, want)
	}
	if !strings.Contains(stderr, "speculative: γ=4") {
		t.Errorf("stderr %q does not report the speculative run", stderr)
	}
	// Sampling works too, and a draft given by name is still honoured.
	if status, _, stderr := runGenerate("-prompt", "func ", "-n", "20", "-speculate", "2", "-seed", "1"); status != 0 || !strings.Contains(stderr, "speculative: γ=2") {
		t.Errorf("sampled -speculate 2: status %d, stderr %q", status, stderr)
	}
}

// TestEveryFlagMeansSomethingOrIsRefused: a flag that would change nothing
// in the run asked for is a usage error (status 2), found before any work;
// a file that cannot serve is status 1.
func TestEveryFlagMeansSomethingOrIsRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-timeout", "-5s"}, "-timeout = -5s: must be a positive duration"},
		{[]string{"-logprobs", "3"}, "-logprobs = 3: the alternatives are listed in the -json output; add -json"},
		{[]string{"-include-stop"}, "-include-stop keeps the stop sequence that ended the text; give one with -stop"},
		{[]string{"-repeat-penalty", "1", "-penalty-window", "32"}, "-penalty-window = 32: no penalty is on"},
		{[]string{"-temperature", "0", "-topk", "40"}, "-topk = 40: with -temperature 0 (greedy) it would change nothing"},
		{[]string{"-temperature", "0", "-topp", "0.5"}, "-topp = 0.5: with -temperature 0 (greedy) it would change nothing"},
		{[]string{"-temperature", "0", "-seed", "7"}, "-seed = 7: with -temperature 0 (greedy) it would change nothing"},
		{[]string{"-beam", "3", "-temperature", "0.5"}, "-temperature = 0.5: beam search does not sample"},
		{[]string{"-beam", "100000"}, "-beam = 100000: beam width must be at most 100"},
		{[]string{"-beam", "3", "-repeat-penalty", "1.2"}, "-repeat-penalty = 1.2: beam search does not sample"},
		{[]string{"-beam", "3", "-json", "-logprobs", "2"}, "-logprobs = 2: beam search does not sample"},
		{[]string{"-draft", "default", "-topk", "40"}, "-topk = 40: speculative decoding samples the target's whole tempered distribution"},
		{[]string{"-speculate", "4", "-presence", "0.5"}, "-presence = 0.5: speculative decoding"},
		{[]string{"-speculate", "4", "-json", "-logprobs", "2"}, "-logprobs = 2: speculative decoding does not list alternatives"},
		{[]string{"-model", "x.bin", "-speculate", "4"}, "-speculate = 4 needs -draft"},
		{[]string{"-temperature", "1e-9"}, "-temperature = 1e-09"},
		{[]string{"-presence", "-1e39"}, "-presence = -1e+39"},
		{[]string{"stray"}, `unexpected argument "stray"`},
	} {
		status, out, stderr := runGenerate(c.args...)
		if status != 2 || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("generate %q: status %d, stdout %q, stderr %q; want status 2, no output and %q", c.args, status, out, stderr, c.want)
		}
	}

	// Values that turn a stage off are accepted where the stage does not apply.
	for _, args := range [][]string{
		{"-beam", "2", "-temperature", "0", "-repeat-penalty", "1", "-topp", "1"},
		{"-speculate", "2", "-repeat-penalty", "1", "-penalty-window", "0", "-topp", "1"},
		{"-no-cache", "-json", "-logprobs", "2", "-seed", "5"},
	} {
		status, _, stderr := runGenerate(append([]string{"-prompt", "func ", "-n", "5"}, args...)...)
		if status != 0 {
			t.Errorf("generate %q: status %d, stderr %q; want it to run", args, status, stderr)
		}
	}
}

// TestNoCacheListsAlternatives: -logprobs works with -no-cache, and gives
// what the cached loop gives.
func TestNoCacheListsAlternatives(t *testing.T) {
	args := []string{"-prompt", "func ", "-n", "6", "-temperature", "0", "-json", "-logprobs", "3"}
	status, want, stderr := runGenerate(args...)
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	status, got, stderr := runGenerate(append(args, "-no-cache")...)
	if status != 0 {
		t.Fatalf("-no-cache: status %d: %s", status, stderr)
	}
	tokens := func(s string) []tokenJSON {
		var out []tokenJSON
		for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
			var tok tokenJSON
			if json.Unmarshal([]byte(line), &tok) == nil && tok.Type == "token" {
				out = append(out, tok)
			}
		}
		return out
	}
	w, g := tokens(want), tokens(got)
	if len(w) != 6 || len(g) != 6 {
		t.Fatalf("%d and %d tokens, want 6 each", len(w), len(g))
	}
	for i := range w {
		if len(g[i].TopLogProbs) != 3 || g[i].ID != w[i].ID || g[i].TopLogProbs[0].ID != w[i].TopLogProbs[0].ID || g[i].TopLogProbs[2].Text != w[i].TopLogProbs[2].Text {
			t.Fatalf("token %d: -no-cache %+v, cached %+v", i, g[i], w[i])
		}
	}
}

// TestDraftWithShorterContextIsRefused: a draft that cannot see as far as
// the run goes would end the text at its own limit; it is refused up
// front, with the numbers, unless the run fits in its context.
func TestDraftWithShorterContextIsRefused(t *testing.T) {
	target, _, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	c := engine.Config{Dim: 16, HiddenDim: 32, NLayers: 1, NHeads: 2, NKVHeads: 2, VocabSize: target.Config.VocabSize, SeqLen: 32, SharedClassifier: true}
	w, err := engine.NewWeights(c)
	if err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(t.TempDir(), "short.bin")
	if m, err := engine.NewModel(c, w); err != nil {
		t.Fatal(err)
	} else if err := m.Save(short); err != nil {
		t.Fatal(err)
	}
	status, out, stderr := runGenerate("-draft", short, "-prompt", "func ", "-n", "100", "-temperature", "0")
	if status != 1 || out != "" || !strings.Contains(stderr, "its context is 32 tokens, shorter than the model's 512, and this run needs 103 tokens: 3 of prompt and -n 100; use a draft with a context of at least 103 tokens, or -n 29 or less") {
		t.Errorf("status %d, stdout %q, stderr %q", status, out, stderr)
	}
	status, _, stderr = runGenerate("-draft", short, "-prompt", "func ", "-n", "0", "-temperature", "0")
	if status != 1 || !strings.Contains(stderr, "until the model's context is full (-n 0)") {
		t.Errorf("-n 0: status %d, stderr %q", status, stderr)
	}
	// A run that fits in the draft's context goes ahead.
	if status, _, stderr := runGenerate("-draft", short, "-prompt", "func ", "-n", "20", "-temperature", "0"); status != 0 {
		t.Errorf("-n 20: status %d, stderr %q", status, stderr)
	}
}

// TestJSONWithoutNumbers: a log-probability that is not a number is
// written as null; the output stays JSON.
func TestJSONWithoutNumbers(t *testing.T) {
	var out bytes.Buffer
	p := &jsonPrinter{w: &out, stderr: &out, cfg: &config{}, contextLen: 512}
	steps := []decoding.Step{
		{ID: 5, Pos: 1, Piece: "a", Text: "a", LogProb: math.NaN(),
			TopLogProbs: []decoding.TokenLogProb{{ID: 5, Text: "a", LogProb: math.Inf(-1)}}},
		{ID: 6, Pos: 2, Piece: "b", Text: "b", LogProb: -1.5, Finish: decoding.FinishLength,
			Stats: &decoding.Stats{PromptTokens: 1, GeneratedTokens: 2}},
	}
	for _, s := range steps {
		if err := p.step(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.end(steps[1], nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines, got %q", lines)
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("not JSON: %s", l)
		}
	}
	if !strings.Contains(lines[0], `"logprob":null`) || !strings.Contains(lines[1], `"logprob":-1.5`) {
		t.Errorf("token lines %q: want null for the NaN and -Inf log-probabilities, numbers otherwise", lines[:2])
	}
	var tok tokenJSON
	if err := json.Unmarshal([]byte(lines[0]), &tok); err != nil || !math.IsNaN(float64(tok.LogProb)) {
		t.Errorf("null does not read back as NaN: %v %v", err, tok.LogProb)
	}
}

// TestGreedyTakesTheLikeliestToken: the default repetition penalty is for
// sampling; -temperature 0 alone picks the model's likeliest token at
// every step.
func TestGreedyTakesTheLikeliestToken(t *testing.T) {
	status, out, stderr := runGenerate("-prompt", "// Package sort", "-n", "40", "-temperature", "0", "-json", "-logprobs", "1")
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var tok tokenJSON
		if err := json.Unmarshal([]byte(line), &tok); err != nil {
			t.Fatal(err)
		}
		if tok.Type != "token" {
			continue
		}
		n++
		if len(tok.TopLogProbs) != 1 || tok.TopLogProbs[0].ID != tok.ID {
			t.Fatalf("token %d at %d is not the likeliest: %+v", tok.ID, tok.Pos, tok.TopLogProbs)
		}
	}
	if n == 0 {
		t.Fatal("no tokens")
	}
}

// TestFlagMistakesAreSaidOnce: a flag the command cannot parse is status
// 2, with the flag package's message and the flags, and nothing after
// them; -h is status 0.
func TestFlagMistakesAreSaidOnce(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-nosuch"}, "flag provided but not defined: -nosuch"},
		{[]string{"-n", "many"}, `invalid value "many" for flag -n`},
	} {
		status, out, stderr := runGenerate(c.args...)
		if status != 2 || out != "" || strings.Count(stderr, c.want) != 1 || !strings.Contains(stderr, "Usage: generate [flags]") || strings.Contains(stderr, "Run 'generate -h'") {
			t.Errorf("generate %q: status %d, stdout %q, stderr %q; want status 2 and %q once, with the flags", c.args, status, out, stderr, c.want)
		}
	}
	if status, _, stderr := runGenerate("-h"); status != 0 || !strings.Contains(stderr, "Usage: generate [flags]") {
		t.Errorf("generate -h: status %d, stderr %q", status, stderr)
	}
}
