package experiment

import (
	"github.com/tokenbytoken/course/engine/decoding"
	"math"
	"slices"
	"testing"
)

func TestRankedAndMass(t *testing.T) {
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
}

func TestNucleusRules(t *testing.T) {
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
		decoding.ApplyTopP(f32, p)
		if got, want := Nucleus(tie, p, MoreThanP), Kept(f32); !slices.Equal(got, want) {
			t.Errorf("Nucleus(%v, %v, more than p) = %v; decoding.ApplyTopP keeps %v", tie, p, got, want)
		}
	}
	if MoreThanP.String() != "more than p" || AtLeastP.String() != "at least p" {
		t.Errorf("rule names: %q, %q", MoreThanP, AtLeastP)
	}
}

func TestSamplerStages(t *testing.T) {
	z := logitsFor(0.5, 0.25, 0.125, 0.125)
	cases := []struct {
		opts decoding.Options
		want []StageCount
	}{
		{decoding.Options{Temperature: 1, TopP: 0.7}, []StageCount{{"model", 4}, {"top-p", 2}}},
		{decoding.Options{Temperature: 1, TopK: 2, MinP: 0.6}, []StageCount{{"model", 4}, {"top-k", 2}, {"min-p", 1}}},
		// The engine's top-k keeps every token tied with the k-th: 0.125 twice.
		{decoding.Options{Temperature: 1, TopK: 3}, []StageCount{{"model", 4}, {"top-k", 4}}},
		{decoding.Options{Temperature: 1, TopK: 2, TopP: 0.9}, []StageCount{{"model", 4}, {"top-k", 2}, {"top-p", 2}}},
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
	stages, _, err := SamplerStages(z, decoding.Options{Temperature: 1, TopK: 2})
	if err != nil {
		t.Fatal(err)
	}
	last := stages[len(stages)-1].Probs
	if math.Abs(last[0]-2.0/3) > 1e-6 || math.Abs(last[1]-1.0/3) > 1e-6 || last[2] != 0 || last[3] != 0 {
		t.Errorf("after top-k 2: %v; want [2/3 1/3 0 0]", last)
	}
	if _, _, err := SamplerStages(z, decoding.Options{TopP: 2}); err == nil {
		t.Error("top-p 2 should be an error")
	}
}

func TestTopValues(t *testing.T) {
	top := []decoding.TokenLogProb{{ID: 2}, {ID: 0}}
	if got := TopValues([]float64{0.25, 0.125, 0.625}, top); !slices.Equal(got, []float64{0.625, 0.25}) {
		t.Errorf("TopValues = %v; want [0.625 0.25]", got)
	}
}

// TestTopMassRounding: a thousand tiny probabilities next to a large
// one still count, because they are added before it.
func TestTopMassRounding(t *testing.T) {
	p := []float64{1}
	for range 1000 {
		p = append(p, 1e-17)
	}
	if got, want := TopMass(p, len(p)), 1+1e-14; got != want {
		t.Errorf("TopMass = %.17g; want %.17g (largest first would give exactly 1)", got, want)
	}
}

// logitsFor returns logits whose softmax is probs (up to rounding).
func logitsFor(probs ...float64) []float32 {
	z := make([]float32, len(probs))
	for i, p := range probs {
		z[i] = float32(math.Log(p))
	}
	return z
}
