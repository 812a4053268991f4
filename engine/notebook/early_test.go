package notebook

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
)

func TestEarlyRepeatedNGramRate(t *testing.T) {
	cases := []struct {
		ids  []int
		n    int
		want float64
	}{
		{[]int{1, 2, 3, 4, 5, 6, 7, 8}, 4, 0},                   // nothing repeats
		{[]int{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}, 4, 5.0 / 9}, // 9 4-grams, the first 4 new
		{[]int{1, 2, 3, 1, 2, 3, 1, 2}, 2, 4.0 / 7},             // 12 23 31 | 12 23 31 12
		{[]int{5, 5, 5, 5}, 1, 3.0 / 4},                         // every 1-gram after the first
		{[]int{1, 2, 3}, 4, 0},                                  // no 4-gram at all
		{[]int{1, 2, 1, 2}, 0, 0},                               // no 0-grams
	}
	for _, c := range cases {
		if got := RepeatedNGramRate(c.ids, c.n); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("RepeatedNGramRate(%v, %d) = %v; want %v", c.ids, c.n, got, c.want)
		}
	}
}

func TestEarlyRepetitionCurve(t *testing.T) {
	texts := [][]int{{1, 2, 1, 2, 1, 2}, {1, 2, 3, 4, 5, 6}}
	// Text 1: [1 2] has one 2-gram, new: 0; [1 2 1 2] → 12 21 12: 1/3;
	// all six → 12 21 12 21 12: 3/5. Text 2 never repeats.
	got := RepetitionCurve(texts, 2, []int{2, 4, 6, 10})
	want := []float64{0, 1.0 / 6, 3.0 / 10, 3.0 / 10} // 10: the whole texts
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("RepetitionCurve = %v; want %v", got, want)
			break
		}
	}
	if got := RepetitionCurve(nil, 2, []int{2, 4}); !slices.Equal(got, []float64{0, 0}) {
		t.Errorf("RepetitionCurve(no texts) = %v; want zeros", got)
	}
}

func TestEarlyEndsInLoop(t *testing.T) {
	count := make([]int, 40)
	for i := range count {
		count[i] = i + 1
	}
	cases := []struct {
		ids  []int
		tail int
		want bool
	}{
		{slices.Repeat([]int{7, 8, 9}, 30), 60, true}, // period 3
		{slices.Repeat(count, 2), 60, false},          // period 40 > 60/2
		{slices.Repeat(count, 2), 80, true},           // period 40 ≤ 80/2
		{[]int{1, 2, 3, 4, 5, 5, 5, 5}, 4, true},      // 5 5 5 5
		{[]int{1, 2, 3, 4, 5, 5, 5, 5}, 5, false},     // 4 5 5 5 5
		{[]int{1, 2, 1, 2}, 6, false},                 // shorter than the tail
	}
	for _, c := range cases {
		if got := EndsInLoop(c.ids, c.tail); got != c.want {
			t.Errorf("EndsInLoop(%v, %d) = %v; want %v", c.ids, c.tail, got, c.want)
		}
	}
	texts := [][]int{{1, 2, 3, 4, 5, 5, 5, 5}, {1, 2, 3, 4, 5, 6, 7, 8}, {9, 9, 9, 9}, {1}}
	if got := LoopShare(texts, 4); got != 0.5 {
		t.Errorf("LoopShare = %v; want 0.5 (2 of 4 texts end in a loop)", got)
	}
	if got := LoopShare(nil, 4); got != 0 {
		t.Errorf("LoopShare(no texts) = %v; want 0", got)
	}
}

func TestEarlyStretches(t *testing.T) {
	texts := [][]int{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {11, 12}}
	side := Stretches(texts, 3, 3)
	if want := [][]int{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}; !slices.EqualFunc(side, want, slices.Equal) {
		t.Errorf("Stretches(3, 3) = %v; want %v", side, want)
	}
	other := Stretches(texts, 3, 6)
	if want := [][]int{{1, 2, 3}, {7, 8, 9}}; !slices.EqualFunc(other, want, slices.Equal) {
		t.Errorf("Stretches(3, 6) = %v; want %v", other, want)
	}
	// A stretch cannot grow into the text after it.
	if s := append(side[0], 99); texts[0][3] != 4 || len(s) != 4 {
		t.Errorf("appending to a stretch changed its text: %v", texts[0])
	}
}

func TestEarlyRankedAndMass(t *testing.T) {
	if got := Ranked([]float64{0.2, 0.5, 0.3}); !slices.Equal(got, []int{1, 2, 0}) {
		t.Errorf("Ranked = %v; want [1 2 0]", got)
	}
	if got := Ranked([]float64{0.25, 0.5, 0.25}); !slices.Equal(got, []int{1, 0, 2}) {
		t.Errorf("Ranked with a tie = %v; want [1 0 2] (lower id first)", got)
	}
	p := []float64{0.125, 0.5, 0.25, 0.125}
	for _, c := range []struct {
		k    int
		want float64
	}{{0, 0}, {1, 0.5}, {2, 0.75}, {3, 0.875}, {10, 1}} {
		if got := TopMass(p, c.k); got != c.want {
			t.Errorf("TopMass(%v, %d) = %v; want %v", p, c.k, got, c.want)
		}
	}
	for _, c := range []struct {
		mass float64
		want int
	}{{0.5, 1}, {0.6, 2}, {0.75, 2}, {0.8, 3}, {1, 4}, {1.5, 4}} {
		if got := TokensToCover(p, c.mass); got != c.want {
			t.Errorf("TokensToCover(%v, %v) = %d; want %d", p, c.mass, got, c.want)
		}
	}
	if got := CountBelow(p, 0.25); got != 2 {
		t.Errorf("CountBelow(%v, 0.25) = %d; want 2", p, got)
	}
	if got := MaxAbsDiff([]float64{0.5, 0.25, 0.25}, []float64{0.25, 0.25, 0.5}); got != 0.25 {
		t.Errorf("MaxAbsDiff = %v; want 0.25", got)
	}
	if got := Drawable([]float64{0, 0.5, 0, 0.5}); got != 2 {
		t.Errorf("Drawable = %d; want 2", got)
	}
	if got := RankLabels(3); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("RankLabels(3) = %v", got)
	}
}

func TestEarlyNucleusRules(t *testing.T) {
	tie := []float64{0.5, 0.25, 0.125, 0.125} // 0.5 + 0.25 = 0.75 exactly
	cases := []struct {
		probs []float64
		p     float64
		rule  NucleusRule
		want  []int
	}{
		{tie, 0.75, MoreThanP, []int{0, 1, 2}}, // the tie: 0.75 is not more than 0.75
		{tie, 0.75, AtLeastP, []int{0, 1}},     // but it is at least 0.75
		{tie, 0.7, MoreThanP, []int{0, 1}},     // away from a tie the rules agree
		{tie, 0.7, AtLeastP, []int{0, 1}},
		{tie, 0.5, MoreThanP, []int{0, 1}},
		{tie, 0.5, AtLeastP, []int{0}},
		{tie, 0.4, MoreThanP, []int{0}},
		{tie, 1, MoreThanP, []int{0, 1, 2, 3}},
		{tie, 1, AtLeastP, []int{0, 1, 2, 3}},
		{[]float64{0.25, 0, 0.5, 0.25}, 1, MoreThanP, []int{2, 0, 3}}, // 0 never kept; ties by id
		{[]float64{0.3, 0.4, 0.3}, 0.5, MoreThanP, []int{1, 0}},
		{tie, 0, MoreThanP, []int{0}},
		{tie, 0, AtLeastP, []int{0}},
	}
	for _, c := range cases {
		if got := Nucleus(c.probs, c.p, c.rule); !slices.Equal(got, c.want) {
			t.Errorf("Nucleus(%v, %v, %v) = %v; want %v", c.probs, c.p, c.rule, got, c.want)
		}
	}
	// MoreThanP is the engine's rule, tie included.
	for _, p := range []float64{0.4, 0.5, 0.7, 0.75, 0.9} {
		f32 := []float32{0.5, 0.25, 0.125, 0.125}
		if got, want := Nucleus(tie, p, MoreThanP), engine.TopP(f32, p, nil); !slices.Equal(got, want) {
			t.Errorf("Nucleus(%v, %v, more than p) = %v; engine.TopP keeps %v", tie, p, got, want)
		}
	}
	if MoreThanP.String() != "more than p" || AtLeastP.String() != "at least p" {
		t.Errorf("rule names: %q, %q", MoreThanP, AtLeastP)
	}
}

// earlyLogitsOf returns logits whose softmax is probs (up to rounding).
func earlyLogitsOf(probs ...float64) []float32 {
	z := make([]float32, len(probs))
	for i, p := range probs {
		z[i] = float32(math.Log(p))
	}
	return z
}

func TestEarlySamplerStages(t *testing.T) {
	z := earlyLogitsOf(0.5, 0.25, 0.125, 0.125)
	cases := []struct {
		opts engine.Options
		want []StageCount
	}{
		{engine.Options{Temperature: 1, TopP: 0.7}, []StageCount{{"model", 4}, {"top-p", 2}}},
		{engine.Options{Temperature: 1, TopK: 2, MinP: 0.6}, []StageCount{{"model", 4}, {"top-k", 2}, {"min-p", 1}}},
		// The engine's top-k keeps every token tied with the k-th: 0.125 twice.
		{engine.Options{Temperature: 1, TopK: 3}, []StageCount{{"model", 4}, {"top-k", 4}}},
		{engine.Options{Temperature: 1, TopK: 2, TopP: 0.9}, []StageCount{{"model", 4}, {"top-k", 2}, {"top-p", 2}}},
	}
	for _, c := range cases {
		stages, counts, err := SamplerStages(z, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(counts, c.want) {
			t.Errorf("SamplerStages(%+v) counts = %v; want %v", c.opts, counts, c.want)
		}
		if len(stages) != len(counts) {
			t.Errorf("%d stages but %d counts", len(stages), len(counts))
		}
	}
	// Top-k 2 leaves 0.5 and 0.25, renormalised to 2/3 and 1/3.
	stages, _, err := SamplerStages(z, engine.Options{Temperature: 1, TopK: 2})
	if err != nil {
		t.Fatal(err)
	}
	last := stages[len(stages)-1].Probs
	if math.Abs(last[0]-2.0/3) > 1e-6 || math.Abs(last[1]-1.0/3) > 1e-6 || last[2] != 0 || last[3] != 0 {
		t.Errorf("after top-k 2: %v; want [2/3 1/3 0 0]", last)
	}
	if _, _, err := SamplerStages(z, engine.Options{TopP: 2}); err == nil {
		t.Error("top-p 2 should be an error")
	}
}

func TestEarlyStageLineAndView(t *testing.T) {
	line := StageLine([]StageCount{{"model", 4}, {"top-k", 3}, {"min-p", 1}})
	want := `<p style="font-family: monospace">model: 4 tokens → top-k: 3 → min-p: 1<br>the token is drawn from 1 token</p>`
	if line != want {
		t.Errorf("StageLine = %s\nwant        %s", line, want)
	}
	z := earlyLogitsOf(0.5, 0.25, 0.125, 0.125)
	names := []string{"a", " b", "c", "d"}
	view, err := SamplerView("t", z, func(id int) string { return names[id] }, engine.Options{Temperature: 1, TopP: 0.7}, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"model: 4 tokens → top-p: 2", "drawn from 2 tokens", "␣b", "sampled from", "tokenbytoken-chart"} {
		if !strings.Contains(view, s) {
			t.Errorf("SamplerView lacks %q", s)
		}
	}
	if strings.Contains(view, `"d"`) {
		t.Error("SamplerView shows token d, which is not among the 3 most likely (ties by lower id)")
	}
}

func TestEarlyMiddleOf(t *testing.T) {
	cases := []struct {
		text string
		size int
		want string
	}{
		{"ab\ncd\nef\ngh\n", 100, "ef\ngh\n"}, // the middle (6) starts a line
		{"ab\ncd\nef\ngh\n", 4, "ef\ng"},
		{"abcdef\ngh", 3, "gh"}, // from 4 to the next line
		{"abcdefgh", 3, ""},     // no line starts in the second half
	}
	for _, c := range cases {
		if got := MiddleOf(c.text, c.size); got != c.want {
			t.Errorf("MiddleOf(%q, %d) = %q; want %q", c.text, c.size, got, c.want)
		}
	}
}

func TestEarlyGoSource(t *testing.T) {
	texts, err := GoSource([]string{"strings/strings.go", "sort/sort.go"}, 500)
	if err != nil {
		t.Skipf("no Go installation to read: %v", err)
	}
	if len(texts) != 2 {
		t.Fatalf("%d texts for 2 files", len(texts))
	}
	for _, s := range texts {
		if len(s) != 500 {
			t.Errorf("text of %d bytes; want 500", len(s))
		}
	}
}

func TestEarlyTopProbAndSurestSteps(t *testing.T) {
	if got := TopProb([]float32{0, 0}); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("TopProb([0 0]) = %v; want 0.5", got)
	}
	steps := [][]float32{{0, 0}, {5, 0}, {0, 0, 0, 0}, {5, 0}}
	if sure, unsure := SurestSteps(steps); sure != 1 || unsure != 2 {
		t.Errorf("SurestSteps = %d, %d; want 1 (p ≈ 0.99), 2 (p = 0.25)", sure, unsure)
	}
}

// TestEarlyContinuationsMatchGenerate: every text is what engine.Generate gives
// for that prompt and seed alone, in prompt-then-seed order.
func TestEarlyContinuationsMatchGenerate(t *testing.T) {
	m, tok, err := engine.Default()
	if err != nil {
		t.Fatal(err)
	}
	prompts := []string{"func main() {\n\t", "// Package "}
	opts := engine.Options{Temperature: 1, TopP: 0.9, LogitBias: map[int]float32{tok.EOS(): float32(math.Inf(-1))}}
	texts, err := Continuations(m, tok, prompts, 12, opts, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) != 4 {
		t.Fatalf("%d texts; want 2 prompts × 2 seeds", len(texts))
	}
	i := 0
	for _, p := range prompts {
		for _, seed := range []uint64{3, 4} {
			o := opts
			o.Seed, o.MaxNewTokens = seed, 12
			var want []int
			for step, err := range engine.Generate(context.Background(), m, tok, p, o) {
				if err != nil {
					t.Fatal(err)
				}
				if step.ID != engine.NoToken && !tok.IsEnd(step.ID) {
					want = append(want, step.ID)
				}
			}
			if !slices.Equal(texts[i], want) || len(want) != 12 {
				t.Errorf("text %d (%q, seed %d) = %v; engine.Generate gives %v", i, p, seed, texts[i], want)
			}
			i++
		}
	}
	if _, err := Continuations(m, tok, prompts, 5, engine.Options{TopP: -1}); err == nil {
		t.Error("invalid options should be an error")
	}
}

// TestEarlySampledSteps: the first step's logits are the prompt's, every text
// grows from the one before, and a run is the same for the same seed.
func TestEarlySampledSteps(t *testing.T) {
	m, tok, err := engine.Default()
	if err != nil {
		t.Fatal(err)
	}
	const prompt = "for i := 0; i <"
	steps, texts, err := SampledSteps(m, tok, prompt, 10, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 10 || len(texts) != 10 || texts[0] != prompt {
		t.Fatalf("%d steps, %d texts, first %q", len(steps), len(texts), texts[0])
	}
	ids, _ := tok.Encode(prompt, true, false)
	first, err := m.NewState().Prefill(ids, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(steps[0], first) {
		t.Error("the first step's logits are not the prompt's")
	}
	for i := 1; i < len(texts); i++ {
		if !strings.HasPrefix(texts[i], texts[i-1]) || len(texts[i]) <= len(texts[i-1]) {
			t.Errorf("text %d %q does not grow from %q", i, texts[i], texts[i-1])
		}
	}
	again, _, _ := SampledSteps(m, tok, prompt, 10, 7)
	if !slices.EqualFunc(steps, again, slices.Equal) {
		t.Error("the same seed gave other steps")
	}
}

func TestEarlyTable(t *testing.T) {
	got := Table("n", IntLabels(25, 50), Series{Name: "greedy", Values: []float64{0.33, 0.5}}, Series{Name: "p", Values: []float64{0.004, 1}})
	want := "n   greedy       p\n25    0.33    0.00\n50    0.50    1.00\n"
	if got != want {
		t.Errorf("Table =\n%s\nwant\n%s", got, want)
	}
}

// TestEarlyNextTokens: the most likely tokens after a prompt, in order, without
// the end of the text.
func TestEarlyNextTokens(t *testing.T) {
	m, tok, err := engine.Default()
	if err != nil {
		t.Fatal(err)
	}
	ids, next, err := NextTokens(m, tok, "}\n", 5)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := tok.Encode("}\n", true, false)
	if !slices.Equal(ids, want) || len(next) != 5 {
		t.Fatalf("ids %v (want %v), %d next tokens", ids, want, len(next))
	}
	logits, _ := m.NewState().Prefill(ids, 0)
	var all []engine.TokenLogProb
	for _, tp := range engine.TopLogProbs(logits, 7) {
		if !tok.IsEnd(tp.ID) {
			all = append(all, tp)
		}
	}
	if !slices.Equal(next, all[:5]) {
		t.Errorf("NextTokens = %v; want %v", next, all[:5])
	}
}

func TestEarlyTopLabelsAndValues(t *testing.T) {
	top := []engine.TokenLogProb{{ID: 2}, {ID: 0}}
	names := []string{" a", "b", "c\n"}
	if got := TopLabels(top, func(id int) string { return names[id] }); !slices.Equal(got, []string{"c⏎", "␣a"}) {
		t.Errorf("TopLabels = %v", got)
	}
	if got := TopValues([]float64{0.25, 0.125, 0.625}, top); !slices.Equal(got, []float64{0.625, 0.25}) {
		t.Errorf("TopValues = %v; want [0.625 0.25]", got)
	}
}

// TestEarlyTopMassRounding: a thousand tiny probabilities next to a large
// one still count, because they are added before it.
func TestEarlyTopMassRounding(t *testing.T) {
	p := []float64{1}
	for range 1000 {
		p = append(p, 1e-17)
	}
	if got, want := TopMass(p, len(p)), 1+1e-14; got != want {
		t.Errorf("TopMass = %.17g; want %.17g (largest first would give exactly 1)", got, want)
	}
}
