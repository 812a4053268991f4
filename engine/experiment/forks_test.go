package experiment

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
)

func TestDistinctCurveAndFirstFork(t *testing.T) {
	samples := [][]int{{1, 2, 3}, {1, 2, 4}, {1, 5, 3}, {1, 2, 3}}
	if got := DistinctCurve(samples); !slices.Equal(got, []int{1, 1, 2, 3}) {
		t.Errorf("DistinctCurve = %v, want [1 1 2 3]", got)
	}
	// A shorter sample counts as all of itself.
	if got := DistinctCurve([][]int{{7}, {7, 8}}); !slices.Equal(got, []int{1, 1, 2}) {
		t.Errorf("DistinctCurve with a short sample = %v, want [1 1 2]", got)
	}
	if k, ok := FirstFork(samples); k != 1 || !ok {
		t.Errorf("FirstFork = %d, %v; want 1, true", k, ok)
	}
	if k, ok := FirstFork([][]int{{4, 5}, {4, 5, 6}}); k != 2 || ok {
		t.Errorf("FirstFork of agreeing samples = %d, %v; want 2, false", k, ok)
	}
}

func TestLongestSharedPair(t *testing.T) {
	samples := [][]int{{1, 2, 3}, {1, 2, 4}, {1, 5, 3}, {1, 2, 3}}
	// 0 and 3 are the same text: they never part, so they do not count.
	if a, b, n, ok := LongestSharedPair(samples); a != 0 || b != 1 || n != 2 || !ok {
		t.Errorf("LongestSharedPair = %d, %d, %d, %v; want 0, 1, 2, true", a, b, n, ok)
	}
	if _, _, _, ok := LongestSharedPair([][]int{{1}, {1}}); ok {
		t.Error("two equal samples make a pair that parts")
	}
	if n := SharedPrefix([]int{1, 2, 3}, []int{1, 2}); n != 2 {
		t.Errorf("SharedPrefix = %d, want 2", n)
	}
}

func TestMeanSDAndMeanLogProb(t *testing.T) {
	mean, sd := MeanSD([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	if mean != 5 || math.Abs(sd-math.Sqrt(32.0/7)) > 1e-12 {
		t.Errorf("MeanSD = %v, %v; want 5, sqrt(32/7)", mean, sd)
	}
	if m, sd := MeanSD([]float64{3}); m != 3 || sd != 0 {
		t.Errorf("MeanSD of one value = %v, %v", m, sd)
	}
	steps := []decoding.Step{{ID: 4, Text: "a", LogProb: -1}, {ID: 5, Text: "b", LogProb: -2}}
	if got := MeanLogProb(steps); got != -1.5 {
		t.Errorf("MeanLogProb = %v, want -1.5", got)
	}
	if !slices.Equal(StepIDs(steps), []int{4, 5}) {
		t.Errorf("StepIDs %v", StepIDs(steps))
	}
}

func TestSeededSampleIsGenerate(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	const prompt = "func (b *Buffer) Len() int {"
	ids, _ := tok.Encode(prompt, true, false)
	for _, seed := range []uint64{1, 7} {
		steps, err := SampleSteps(m, tok, prompt, 24, 1, seed)
		if err != nil {
			t.Fatal(err)
		}
		got, err := SeededSample(engine.NewModelLM(m, 1), ids, 24, 1, seed, tok.IsEnd)
		if err != nil {
			t.Fatal(err)
		}
		if want := StepIDs(steps); !slices.Equal(got, want) {
			t.Errorf("seed %d: SeededSample %v, decoding.Generate %v", seed, got, want)
		}
	}
	var gen []int
	for step, err := range decoding.Generate(context.Background(), m, tok, prompt, decoding.Options{MaxNewTokens: 5}) {
		if err != nil {
			t.Fatal(err)
		}
		gen = append(gen, step.ID)
	}
	if got, _ := SeededSample(engine.NewModelLM(m, 1), ids, 5, 0, 9, tok.IsEnd); !slices.Equal(got, gen) {
		t.Errorf("temperature 0: %v, want greedy %v", got, gen)
	}
}

func TestForkSample(t *testing.T) {
	uniform := make(lateTableLM, 50) // every token 1/50
	for _, k := range []int{0, 3, 10} {
		f, err := ForkSample(uniform, []int{0}, 12, k, 1, 1, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.Trunk[:k], f.Branch[:k]) || f.At != k || f.Parted < k || len(f.Branch) != 12 {
			t.Errorf("k = %d: trunk %v, branch %v, at %d, parted %d", k, f.Trunk, f.Branch, f.At, f.Parted)
		}
		if f.Parted < 12 && (math.Abs(f.TrunkProb-0.02) > 1e-6 || math.Abs(f.BranchProb-0.02) > 1e-6) {
			t.Errorf("k = %d: probabilities at the fork %v, %v; want 1/50", k, f.TrunkProb, f.BranchProb)
		}
	}
	// The same seed from step 0 draws the same numbers: no fork at all.
	f, _ := ForkSample(uniform, []int{0}, 12, 0, 1, 1, 1, nil)
	if f.Parted != 12 || !slices.Equal(f.Trunk, f.Branch) {
		t.Errorf("same seed at step 0: parted at %d", f.Parted)
	}
	if _, err := ForkSample(uniform, []int{0}, 12, -1, 1, 1, 2, nil); err == nil {
		t.Error("a negative step is accepted")
	}
	// A trunk that ends (token 3 ends the text) before the step is copied.
	ends := lateTableLM{0, 0, 0, 9}
	f, _ = ForkSample(ends, []int{0}, 12, 4, 1, 1, 2, func(id int) bool { return id == 3 })
	if !slices.Equal(f.Trunk, []int{3}) || !slices.Equal(f.Branch, []int{3}) || f.Step != 4 || f.At != 1 {
		t.Errorf("ended trunk: %v, branch %v, step %d, at %d", f.Trunk, f.Branch, f.Step, f.At)
	}
}
