package experiment

import (
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"strings"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{5}, 5},
		{[]time.Duration{9, 1, 5}, 5},
		{[]time.Duration{8, 2, 4, 100}, 6},
	} {
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestSpeedTrialSpeedUp: the speed-up is the ratio of the medians, which
// one slow run does not move.
func TestSpeedTrialSpeedUp(t *testing.T) {
	tr := SpeedTrial{
		Gammas: []int{2},
		Tokens: []int{1, 2, 3},
		Plain:  []time.Duration{30 * time.Millisecond, 31 * time.Millisecond, 900 * time.Millisecond},
		Spec:   [][]time.Duration{{10 * time.Millisecond, 500 * time.Millisecond, 15 * time.Millisecond}},
		Stats:  []decoding.SpeculativeStats{{Tokens: []int{1, 2, 3}, TargetPasses: 2, Accepted: 2, Rejected: 0}},
	}
	if got := tr.SpeedUp(0); got < 31.0/15-1e-9 || got > 31.0/15+1e-9 {
		t.Errorf("speed-up %v, want 31/15", got)
	}
	table := tr.Table()
	for _, s := range []string{"median 31.0 ms over 3 rounds", "γ = 2: α = 1.00, 1.50 tokens per target pass, median 15.0 ms, speed-up 2.07×"} {
		if !strings.Contains(table, s) {
			t.Errorf("the table lacks %q:\n%s", s, table)
		}
	}
}

// TestMeasureSpeedUpOnTheCourseModel: on a text that repeats its prompt,
// every γ gives plain greedy decoding's tokens (MeasureSpeedUp checks it),
// each run is timed once per round, and the lookup proposes tokens.
func TestMeasureSpeedUpOnTheCourseModel(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	prompt := "func (b *Buffer) Len() int { return len(b.buf) }\nfunc (b *Buffer) Len() int {"
	tr, err := MeasureSpeedUp(m, tok, prompt, 24, decoding.PromptLookup{}, []int{1, 3}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Tokens) == 0 || len(tr.Plain) != 2 || len(tr.Spec[0]) != 2 || len(tr.Spec[1]) != 2 {
		t.Fatalf("%d tokens, %d plain runs and %d, %d speculative: want tokens and 2 runs each", len(tr.Tokens), len(tr.Plain), len(tr.Spec[0]), len(tr.Spec[1]))
	}
	for i, st := range tr.Stats {
		if len(st.Tokens) != len(tr.Tokens) || st.TargetPasses == 0 || st.TargetPasses > len(st.Tokens) || st.Drafted == 0 {
			t.Errorf("γ = %d: %d tokens in %d passes, %d drafted; want %d in at most as many passes, and proposals", tr.Gammas[i], len(st.Tokens), st.TargetPasses, st.Drafted, len(tr.Tokens))
		}
	}
	if _, err := MeasureSpeedUp(m, tok, prompt, 8, decoding.PromptLookup{}, nil, 1); err == nil {
		t.Error("no γ was accepted")
	}
	if _, err := MeasureSpeedUp(m, tok, prompt, 8, decoding.PromptLookup{MaxN: 1, MinN: 3}, []int{2}, 1); err == nil {
		t.Error("an impossible lookup was accepted")
	}
}

func TestPassCosts(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	ids, err := tok.Encode("func main() {", true, false)
	if err != nil {
		t.Fatal(err)
	}
	step, verify, err := PassCosts(m, ids, []int{1, 4}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if step <= 0 || len(verify) != 2 || verify[0] <= 0 || verify[1] <= 0 {
		t.Errorf("step %v, verify %v: want positive times, two of them", step, verify)
	}
	for _, c := range []struct {
		seq  []int
		ks   []int
		runs int
	}{
		{ids[:1], []int{1}, 1},
		{ids, nil, 1},
		{ids, []int{0}, 1},
		{ids, []int{1}, 0},
		{ids, []int{m.Config.SeqLen}, 1},
	} {
		if _, _, err := PassCosts(m, c.seq, c.ks, c.runs); err == nil {
			t.Errorf("PassCosts(%d tokens, %v, %d runs) was accepted", len(c.seq), c.ks, c.runs)
		}
	}
}
