package decoding

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
)

// Five sampled completions of "357+268=", reduced to their final answers:
// three agree, one is wrong and one was cut off before it answered.
func ExampleMajority() {
	v, err := Majority([]string{"625", "615", "625", "", "625"})
	if err != nil {
		panic(err)
	}
	fmt.Printf("answer %s with %d of %d votes (%d samples answered)\n", v.Answer, v.Votes, v.Total, v.Counted)
	fmt.Println("tally:", v.Tally)
	// Output:
	// answer 625 with 3 of 5 votes (4 samples answered)
	// tally: [{625 3} {615 1}]
}

func TestMajority(t *testing.T) {
	cases := []struct {
		answers []string
		want    string
		votes   int
		counted int
		tally   string
	}{
		{[]string{"7"}, "7", 1, 1, "[{7 1}]"},
		{[]string{"a", "b", "b"}, "b", 2, 3, "[{b 2} {a 1}]"},
		// A tie goes to the answer seen first, whatever the map order.
		{[]string{"x", "y", "y", "x"}, "x", 2, 4, "[{x 2} {y 2}]"},
		{[]string{"y", "x", "x", "y"}, "y", 2, 4, "[{y 2} {x 2}]"},
		// Empty answers are not votes: two empties do not beat one "3".
		{[]string{"", "3", ""}, "3", 1, 1, "[{3 1}]"},
		{[]string{"1", "2", "3", "2", "3", "3"}, "3", 3, 6, "[{3 3} {2 2} {1 1}]"},
	}
	for _, c := range cases {
		v, err := Majority(c.answers)
		if err != nil {
			t.Errorf("Majority(%q): %v", c.answers, err)
			continue
		}
		if v.Answer != c.want || v.Votes != c.votes || v.Counted != c.counted || v.Total != len(c.answers) {
			t.Errorf("Majority(%q) = %q with %d votes, %d counted of %d; want %q with %d, %d counted of %d",
				c.answers, v.Answer, v.Votes, v.Counted, v.Total, c.want, c.votes, c.counted, len(c.answers))
		}
		if got := fmt.Sprint(v.Tally); got != c.tally {
			t.Errorf("Majority(%q).Tally = %s; want %s", c.answers, got, c.tally)
		}
	}
}

func TestMajorityTieIsDeterministic(t *testing.T) {
	// Many distinct answers, all tied: the first must win every time.
	var answers []string
	for i := range 50 {
		answers = append(answers, fmt.Sprint(i))
	}
	for range 20 {
		v, err := Majority(answers)
		if err != nil || v.Answer != "0" {
			t.Fatalf("Majority(0..49) = %q, %v; want \"0\" (the first of the tied answers)", v.Answer, err)
		}
	}
}

func TestMajorityNoAnswer(t *testing.T) {
	for _, answers := range [][]string{nil, {}, {"", ""}} {
		v, err := Majority(answers)
		if !errors.Is(err, ErrNoAnswer) {
			t.Errorf("Majority(%q) error = %v; want ErrNoAnswer", answers, err)
			continue
		}
		if v.Answer != "" || v.Total != len(answers) {
			t.Errorf("Majority(%q) = %+v; want no answer and Total %d", answers, v, len(answers))
		}
		if want := fmt.Sprintf("over %d samples", len(answers)); len(answers) > 0 && !strings.Contains(err.Error(), want) {
			t.Errorf("Majority(%q) error %q does not say %q", answers, err, want)
		}
	}
}

func TestVoteShare(t *testing.T) {
	v, _ := Majority([]string{"1", "1", "", "2"})
	if got := v.Share(); got != 0.5 {
		t.Errorf("Share of 2 votes among 4 samples = %v; want 0.5", got)
	}
	if got := (Vote{}).Share(); got != 0 {
		t.Errorf("Share of an empty vote = %v; want 0", got)
	}
}

func TestMajorityOf(t *testing.T) {
	samples := []Completion{{Answer: "4"}, {Answer: ""}, {Answer: "5"}, {Answer: "5"}}
	v, err := MajorityOf(samples)
	if err != nil || v.Answer != "5" || v.Votes != 2 || v.Counted != 3 || v.Total != 4 {
		t.Errorf("MajorityOf = %+v, %v; want 5 with 2 votes, 3 counted of 4", v, err)
	}
}

func TestBestOfN(t *testing.T) {
	samples := []Completion{
		{Text: "a", LogProb: -6, Tokens: 3},   // mean -2
		{Text: "b", LogProb: -2.5, Tokens: 1}, // the best total, but a mean of -2.5
		{Text: "c", LogProb: -3, Tokens: 3},   // mean -1: the best mean
		{Text: "d", LogProb: -3, Tokens: 3},   // ties with c, which came first
	}
	i, err := BestOfN(samples, Completion.MeanLogProb)
	if err != nil || i != 2 {
		t.Errorf("BestOfN by mean log-probability = %d, %v; want 2", i, err)
	}
	i, err = BestOfN(samples, func(s Completion) float64 { return s.LogProb })
	if err != nil || i != 1 {
		t.Errorf("BestOfN by total log-probability = %d, %v; want 1 (-2.5, the short one)", i, err)
	}
	nan := func(s Completion) float64 {
		if s.Text == "c" {
			return math.NaN()
		}
		return s.LogProb
	}
	if i, err := BestOfN(samples, nan); err != nil || i != 1 {
		t.Errorf("BestOfN with a NaN score for sample 2 = %d, %v; want 1 (NaN never wins)", i, err)
	}
	nanFirst := func(s Completion) float64 {
		if s.Text == "a" {
			return math.NaN()
		}
		return -s.LogProb
	}
	if i, err := BestOfN(samples, nanFirst); err != nil || i != 2 {
		t.Errorf("BestOfN with a NaN score first = %d, %v; want 2 (score 3; NaN never wins)", i, err)
	}
}

func TestBestOfNErrors(t *testing.T) {
	if _, err := BestOfN(nil, Completion.MeanLogProb); err == nil || !strings.Contains(err.Error(), "no samples") {
		t.Errorf("BestOfN(nil) error = %v; want one saying there are no samples", err)
	}
	if _, err := BestOfN([]Completion{{}}, nil); err == nil || !strings.Contains(err.Error(), "nil") {
		t.Errorf("BestOfN with a nil score error = %v; want one naming the nil score", err)
	}
	allNaN := func(Completion) float64 { return math.NaN() }
	if _, err := BestOfN([]Completion{{}, {}}, allNaN); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("BestOfN with only NaN scores error = %v; want one saying so", err)
	}
}

func TestMeanLogProb(t *testing.T) {
	if got := (Completion{LogProb: -3, Tokens: 2}).MeanLogProb(); got != -1.5 {
		t.Errorf("MeanLogProb of -3 over 2 tokens = %v; want -1.5", got)
	}
	if got := (Completion{}).MeanLogProb(); !math.IsInf(got, -1) {
		t.Errorf("MeanLogProb of no tokens = %v; want -Inf", got)
	}
}

func TestCompletionSeed(t *testing.T) {
	seen := map[uint64]int{}
	for base := range uint64(4) {
		for i := range 100 {
			s := CompletionSeed(base, i)
			if s != CompletionSeed(base, i) {
				t.Fatalf("CompletionSeed(%d, %d) is not deterministic", base, i)
			}
			if j, dup := seen[s]; dup {
				t.Fatalf("CompletionSeed(%d, %d) = %#x repeats an earlier seed (#%d)", base, i, s, j)
			}
			seen[s] = len(seen)
		}
	}
}

// voteModel is a small random model over a byte vocabulary plus "a" and
// "b", whose samples at temperature 1 differ from seed to seed.
func voteModel() (*engine.Model, *engine.Tokenizer) {
	tok := byteTokenizer("a", "b")
	c := engine.Config{Dim: 16, HiddenDim: 32, NLayers: 1, NHeads: 2, NKVHeads: 1, VocabSize: tok.VocabSize(), SeqLen: 32, SharedClassifier: true}
	return randomModel(c, 3), tok
}

func TestGenerateN(t *testing.T) {
	m, tok := voteModel()
	opts := Options{Temperature: 1, MaxNewTokens: 6, Seed: 42}
	first := func(text string) (string, bool) {
		if text == "" {
			return "", false
		}
		return text[:1], true
	}
	samples, err := GenerateN(context.Background(), m, tok, "ab", 8, opts, first)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 8 {
		t.Fatalf("GenerateN(n=8) gave %d samples", len(samples))
	}
	distinct := map[string]bool{}
	for i, s := range samples {
		distinct[s.Text] = true
		// Sample i is exactly Generate with its own seed.
		o := opts
		o.Seed = CompletionSeed(opts.Seed, i)
		var text strings.Builder
		var tokens int
		var logp float64
		var finish FinishReason
		for step, err := range Generate(context.Background(), m, tok, "ab", o) {
			if err != nil {
				t.Fatal(err)
			}
			text.WriteString(step.Text)
			tokens++
			logp += step.LogProb
			finish = step.Finish
		}
		if s.Seed != o.Seed || s.Text != text.String() || s.Tokens != tokens || s.Finish != finish || math.Abs(s.LogProb-logp) > 1e-9 {
			t.Errorf("sample %d = %+v; Generate with seed %#x gives %q, %d tokens, log-prob %.4f, finish %s",
				i, s, o.Seed, text.String(), tokens, logp, finish)
		}
		if want, _ := first(s.Text); s.Answer != want {
			t.Errorf("sample %d: Answer %q; want %q, the first byte of %q", i, s.Answer, want, s.Text)
		}
	}
	if len(distinct) < 2 {
		t.Errorf("8 samples at temperature 1 from a random model are all %q; the seeds do not differ", samples[0].Text)
	}
	// Completion.LogProb sums the log-probabilities: NoLogProbs cannot
	// leave them out.
	opts.NoLogProbs = true
	again, err := GenerateN(context.Background(), m, tok, "ab", 8, opts, first)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range again {
		if s != samples[i] {
			t.Errorf("with NoLogProbs, sample %d = %+v; without, %+v", i, s, samples[i])
		}
	}
}

func TestGenerateNDefaultAnswer(t *testing.T) {
	m, tok := voteModel()
	samples, err := GenerateN(context.Background(), m, tok, "a", 2, Options{MaxNewTokens: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range samples {
		if s.Answer != strings.TrimSpace(s.Text) {
			t.Errorf("sample %d: with a nil answer function, Answer = %q; want the trimmed text %q", i, s.Answer, strings.TrimSpace(s.Text))
		}
	}
	// Greedy decoding: every sample is the same.
	if samples[0].Text != samples[1].Text {
		t.Errorf("two greedy samples differ: %q and %q", samples[0].Text, samples[1].Text)
	}
}

func TestGenerateNErrors(t *testing.T) {
	m, tok := voteModel()
	if _, err := GenerateN(context.Background(), m, tok, "a", 0, Options{}, nil); err == nil || !strings.Contains(err.Error(), "n = 0") {
		t.Errorf("GenerateN(n=0) error = %v; want one naming n = 0", err)
	}
	_, err := GenerateN(context.Background(), m, tok, "a", 2, Options{Temperature: -1}, nil)
	var se *SettingError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "completion 1 of 2") {
		t.Errorf("GenerateN with Temperature -1 error = %v; want a SettingError, wrapped with the completion's number", err)
	}
}
