package seeds

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/exercises/internal/check"
)

// engineSample is n tokens after prompt drawn by the engine's own loop and
// sampler with the given temperature and seed: the reference for Sample.
func engineSample(t *testing.T, lm decoding.LM, prompt []int, n int, temp float64, seed uint64, isEnd func(int) bool) []int {
	t.Helper()
	s, err := decoding.NewSampler(temp, 1, seed)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for step, err := range decoding.Decode(context.Background(), lm, prompt, decoding.Options{MaxNewTokens: n, Decoder: decoding.Pick(func(l []float32) int { id, _ := s.Sample(l); return id }), IsEnd: isEnd}) {
		id := step.ID
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

// TestTask3_Branch: the trunk is the sample for the first seed; the branch
// shares exactly its first k tokens and then continues as the second
// seed's sample would after them, so on a flat model the two differ from
// step k on. With k = 0 the branch is just the second seed's sample.
//
//grade:task 3 points 2
func TestTask3_Branch(t *testing.T) {
	defer check.Recover(t)
	lm, prompt := flatLM(t, 50, 64), []int{0}
	for _, c := range []struct {
		k    int
		temp float64
	}{{5, 1}, {3, 0.7}, {0, 1}} {
		const n, seed, branchSeed = 12, 3, 4
		call := fmt.Sprintf("Branch(flat, [0], n %d, k %d, T %g, seeds %d and %d)", n, c.k, c.temp, seed, branchSeed)
		trunk, branch, err := Branch(lm.calling(call), prompt, n, c.k, c.temp, seed, branchSeed, nil)
		if err != nil {
			t.Fatalf("%s: error %v", call, err)
		}
		wantTrunk := engineSample(t, lm, prompt, n, c.temp, seed, nil)
		rest := engineSample(t, lm, slices.Concat(prompt, wantTrunk[:c.k]), n-c.k, c.temp, branchSeed, nil)
		wantBranch := slices.Concat(wantTrunk[:c.k], rest)
		if !slices.Equal(trunk, wantTrunk) {
			t.Fatalf("%s: trunk %s; want %s, the sample for seed %d (is the branch overwriting the trunk's array?)\n%s", call, check.Vec(trunk), check.Vec(wantTrunk), seed, check.Diff(trunk, wantTrunk, 0))
		}
		if !slices.Equal(branch, wantBranch) {
			t.Fatalf("%s: branch %s; want %s: the trunk's first %d tokens, then what seed %d draws after them\n%s", call, check.Vec(branch), check.Vec(wantBranch), c.k, branchSeed, check.Diff(branch, wantBranch, 0))
		}
		if branch[c.k] == trunk[c.k] || slices.Equal(branch[c.k:], trunk[c.k:]) {
			t.Fatalf("%s: the branch %s and the trunk %s should part at step %d on this flat model", call, check.Vec(branch), check.Vec(trunk), c.k)
		}
	}
}

// TestTask3_BranchEdges: a trunk with no more than k tokens (n ≤ k, or an
// end token before step k) is copied; at temperature 0 the branch is the
// trunk whatever the seeds; a negative k is an error.
//
//grade:task 3 points 1
func TestTask3_BranchEdges(t *testing.T) {
	defer check.Recover(t)
	lm := flatLM(t, 50, 64)
	for _, k := range []int{6, 9} {
		trunk, branch, err := Branch(lm.calling(fmt.Sprintf("Branch(flat, [0], n 6, k %d, T 1, seeds 3 and 4)", k)), []int{0}, 6, k, 1, 3, 4, nil)
		if err != nil || len(trunk) != 6 || !slices.Equal(branch, trunk) {
			t.Errorf("Branch(flat, [0], n 6, k %d, T 1, seeds 3 and 4) = trunk %s, branch %s, error %v; want 6 tokens and the branch equal to the trunk", k, check.Vec(trunk), check.Vec(branch), err)
		}
	}

	// Token 1 first, then the end token 7: every sample is [1 7].
	ban := float32(math.Inf(-1))
	ends := newFuncLM(t, 8, 64, func(prefix []int) []float32 {
		z := []float32{ban, ban, ban, ban, ban, ban, ban, ban}
		z[[]int{1, 7}[min(len(prefix)-1, 1)]] = 0
		return z
	})
	isEnd := func(id int) bool { return id == 7 }
	for _, k := range []int{1, 2, 3} {
		trunk, branch, err := Branch(ends.calling(fmt.Sprintf("Branch on a model that writes 1 then the end token 7, n 10, k %d", k)), []int{0}, 10, k, 1, 3, 4, isEnd)
		if err != nil || !slices.Equal(trunk, []int{1, 7}) || !slices.Equal(branch, []int{1, 7}) {
			t.Errorf("Branch on a model that writes 1 then the end token 7, n 10, k %d: trunk %s, branch %s, error %v; want [1 7] for both", k, check.Vec(trunk), check.Vec(branch), err)
		}
	}

	trunk, branch, err := Branch(peakedLM(t).calling("Branch(peaked, [4], n 10, k 4, temperature 0, seeds 3 and 4)"), []int{4}, 10, 4, 0, 3, 4, nil)
	if want := greedyPath([]int{4}, 10); err != nil || !slices.Equal(trunk, want) || !slices.Equal(branch, want) {
		t.Errorf("Branch(peaked, [4], n 10, k 4, temperature 0, seeds 3 and 4) = trunk %s, branch %s, error %v; want the greedy path %v for both", check.Vec(trunk), check.Vec(branch), err, want)
	}
	if _, _, err := Branch(lm.calling("Branch with k = -1"), []int{0}, 6, -1, 1, 3, 4, nil); err == nil {
		t.Errorf("Branch with k = -1 returned no error; want one")
	}
}

// TestTask3_Distinct: the number of different continuations after each
// position, on hand-made samples (of different lengths, with token ids that
// a careless text key would confuse).
//
//grade:task 3 points 2
func TestTask3_Distinct(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		samples [][]int
		want    []int
	}{
		{[][]int{{1, 2, 3}, {1, 2, 4}, {1, 5, 3}, {1, 2, 3}}, []int{1, 1, 2, 3}},
		{[][]int{{1, 2}, {1, 2, 3}, {1}}, []int{1, 1, 2, 3}},
		{[][]int{{1, 2}, {1, 2}}, []int{1, 1, 1}},
		{[][]int{{5}, {6}}, []int{1, 2}},
		{[][]int{{1, 23}, {12, 3}}, []int{1, 2, 2}},
		{[][]int{{}}, []int{1}},
		{nil, nil},
	} {
		if got := Distinct(c.samples); !slices.Equal(got, c.want) {
			t.Errorf("Distinct(%v) = %s; want %v", c.samples, check.Vec(got), c.want)
		}
	}
}

// distinctRef counts distinct prefixes the plain way, as notebook 11 does.
func distinctRef(samples [][]int) []int {
	longest := 0
	for _, s := range samples {
		longest = max(longest, len(s))
	}
	var counts []int
	for k := 0; k <= longest; k++ {
		seen := map[string]bool{}
		for _, s := range samples {
			seen[fmt.Sprint(s[:min(k, len(s))])] = true
		}
		counts = append(counts, len(seen))
	}
	return counts
}

// TestTask3_Forks: 30 seeded samples of a model that is certain except at
// its second step, where three tokens are equally likely, have 1, 1, then
// 3 different continuations; and 10 samples of the course's model drawn
// with Sample are decoding.Generate's, with the same counts.
//
//grade:task 3 points 1
func TestTask3_Forks(t *testing.T) {
	defer check.Recover(t)
	ban := float32(math.Inf(-1))
	fork := newFuncLM(t, 8, 64, func(prefix []int) []float32 {
		z := []float32{ban, ban, ban, ban, ban, ban, ban, ban}
		switch len(prefix) {
		case 1:
			z[1] = 0
		case 2:
			z[2], z[3], z[4] = 0, 0, 0
		default:
			z[5] = 0
		}
		return z
	})
	var samples [][]int
	for seed := uint64(1); seed <= 30; seed++ {
		s, err := Sample(fork.calling(fmt.Sprintf("Sample(fork, [0], 6, 1, seed %d)", seed)), []int{0}, 6, 1, seed, nil)
		if err != nil {
			t.Fatalf("Sample(fork, [0], 6, 1, seed %d): %v", seed, err)
		}
		samples = append(samples, s)
	}
	if got, want := Distinct(samples), []int{1, 1, 3, 3, 3, 3, 3}; !slices.Equal(got, want) {
		t.Fatalf("30 samples of the fork model (seeds 1…30): Distinct = %s; want %v\nsamples: %s", check.Vec(got), want, check.List(samples, check.Vec[int]))
	}

	m, tok, err := models.Default()
	if err != nil {
		t.Fatalf("models.Default(): %v", err)
	}
	const prompt, n = "func (b *Buffer) Len() int {", 16
	ids, err := tok.Encode(prompt, true, false)
	if err != nil {
		t.Fatal(err)
	}
	lm := engine.NewModelLM(m, 1)
	var mine, ref [][]int
	for seed := uint64(1); seed <= 10; seed++ {
		bounded := boundedLM{lm, check.NewBudget(t, "the model's NextLogits").For(fmt.Sprintf("Sample on the course model after %q, seed %d", prompt, seed), n+10, sampleHint)}
		s, err := Sample(bounded, ids, n, 1, seed, tok.IsEnd)
		if err != nil {
			t.Fatalf("Sample on the course model, seed %d: %v", seed, err)
		}
		mine = append(mine, s)
		var want []int
		for step, err := range decoding.Generate(context.Background(), m, tok, prompt, decoding.Options{MaxNewTokens: n, Temperature: 1, Seed: seed}) {
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, step.ID)
		}
		ref = append(ref, want)
	}
	if got, want := Distinct(mine), distinctRef(ref); !slices.Equal(got, want) {
		t.Errorf("10 samples of the course model after %q at temperature 1 (seeds 1…10): Distinct = %s; decoding.Generate's samples give %s", prompt, check.Vec(got), check.Vec(want))
	}
}
