package engine

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine/internal/testmodel"
)

// passModels are the models a Pass is tested on: the course's model
// (float32, run.c's arithmetic) and SmolLM2 (quantized, llama.cpp's).
func passModels(t *testing.T) map[string]*Model {
	t.Helper()
	course, _, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	smol, _, err := loadGGUFWithTokenizer(testmodel.Path(t, testmodel.SmolLM2))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*Model{"course": course, "smollm2": smol}
}

// sequences are prompts of different lengths, as ids below the smaller
// vocabulary.
func passPrompts(vocab int) [][]int {
	var out [][]int
	for s, n := range []int{5, 1, 40, 17} {
		p := make([]int, n)
		for i := range p {
			p[i] = (7*s + 31*i + 3) % vocab
		}
		out = append(out, p)
	}
	return out
}

// alone runs one sequence through a State: its prompt as a prefill, then
// each next token as a decoding step, and returns the logits after every
// step (the prefill's last row first).
func alone(t *testing.T, m *Model, prompt, next []int) [][]float32 {
	t.Helper()
	st := m.NewState()
	logits, err := st.Prefill(prompt, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := [][]float32{slices.Clone(logits)}
	for i, id := range next {
		logits, err := st.Forward(id, len(prompt)+i)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, slices.Clone(logits))
	}
	return out
}

// TestPassMixedBatch: sequences of different lengths, started at
// different steps, run as mixed batches (one sequence's prompt beside the
// others' decoding steps) give each sequence the logits it gets alone.
// For SmolLM2, whose products are the same number for number in either
// shape, they are the same bit for bit; for the float32 model, whose batch
// product sums in another order than its step, within 1e-4 of the
// largest logit.
func TestPassMixedBatch(t *testing.T) {
	for name, m := range passModels(t) {
		t.Run(name, func(t *testing.T) {
			prompts := passPrompts(min(m.Config.VocabSize, 259))
			const steps = 4
			next := func(s, i int) int { return (11*s + 5*i + 1) % 259 }
			// Sequence s joins at step s: its prompt is one of that
			// step's runs of rows.
			pass := m.NewPass()
			caches := make([]*KVCache, len(prompts))
			got := make([][][]float32, len(prompts))
			for step := 0; step < len(prompts)+steps; step++ {
				var batch []Row
				var who []int
				for s, p := range prompts {
					switch {
					case step == s:
						var err error
						if caches[s], err = m.NewCache(); err != nil {
							t.Fatal(err)
						}
						for i, id := range p {
							batch = append(batch, Row{Token: id, Pos: i, Cache: caches[s], Logits: i == len(p)-1})
						}
						who = append(who, s)
					case step > s && step <= s+steps:
						i := step - s - 1
						batch = append(batch, Row{Token: next(s, i), Pos: len(p) + i, Cache: caches[s], Logits: true})
						who = append(who, s)
					}
				}
				// The rows go in reverse, so runs are not in the
				// order the sequences were made.
				slices.Reverse(batch)
				slices.Reverse(who)
				out, err := pass.Forward(context.Background(), batch)
				if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				if len(out) != len(who) {
					t.Fatalf("step %d: %d rows of logits for %d asked", step, len(out), len(who))
				}
				for k, s := range who {
					got[s] = append(got[s], slices.Clone(out[k]))
				}
			}
			for s, p := range prompts {
				var tokens []int
				for i := range steps {
					tokens = append(tokens, next(s, i))
				}
				want := alone(t, m, p, tokens)
				if caches[s].Len() != len(p)+steps {
					t.Errorf("sequence %d: cache Len %d, want %d", s, caches[s].Len(), len(p)+steps)
				}
				for i := range want {
					diff, scale := largestDiff(got[s][i], want[i])
					if name == "smollm2" && i > 0 && diff != 0 {
						t.Errorf("sequence %d, step %d: decoding in a batch differs from alone by %g; want the same bits", s, i, diff)
					}
					if diff > 1e-4*scale {
						t.Errorf("sequence %d, step %d: batch and alone differ by %g (largest logit %g)", s, i, diff, scale)
					}
				}
			}
		})
	}
}

// TestPassRowIsItsOwn: a decoding row's logits are the same bits whether
// it runs alone or beside other sequences' rows at other positions:
// batch invariance.
func TestPassRowIsItsOwn(t *testing.T) {
	for name, m := range passModels(t) {
		t.Run(name, func(t *testing.T) {
			prompts := passPrompts(min(m.Config.VocabSize, 259))
			prepared := func() []*KVCache {
				pass := m.NewPass()
				var caches []*KVCache
				for _, p := range prompts {
					kv, err := m.NewCache()
					if err != nil {
						t.Fatal(err)
					}
					var batch []Row
					for i, id := range p {
						batch = append(batch, Row{Token: id, Pos: i, Cache: kv})
					}
					if _, err := pass.Forward(context.Background(), batch); err != nil {
						t.Fatal(err)
					}
					caches = append(caches, kv)
				}
				return caches
			}
			caches := prepared()
			var batch []Row
			for s, p := range prompts {
				batch = append(batch, Row{Token: 42 + s, Pos: len(p), Cache: caches[s], Logits: true})
			}
			together, err := m.NewPass().Forward(context.Background(), batch)
			if err != nil {
				t.Fatal(err)
			}
			together = cloneRows(together)
			for s := range prompts {
				own := prepared()
				r := batch[s]
				r.Cache = own[s]
				out, err := m.NewPass().Forward(context.Background(), []Row{r})
				if err != nil {
					t.Fatal(err)
				}
				if diff, _ := largestDiff(out[0], together[s]); diff != 0 {
					t.Errorf("sequence %d: alone and in a batch of %d differ by %g; want the same bits", s, len(batch), diff)
				}
			}
		})
	}
}

func cloneRows(rows [][]float32) [][]float32 {
	out := make([][]float32, len(rows))
	for i, r := range rows {
		out[i] = slices.Clone(r)
	}
	return out
}

// largestDiff is the largest |a[i] - b[i]| and the largest |b[i]|.
func largestDiff(a, b []float32) (diff, scale float64) {
	for i := range b {
		diff = max(diff, math.Abs(float64(a[i])-float64(b[i])))
		scale = max(scale, math.Abs(float64(b[i])))
	}
	return diff, scale
}

// TestPassRefusesBadBatches: what a pass cannot run is an error that says
// what was wrong, and changes no cache.
func TestPassRefusesBadBatches(t *testing.T) {
	m := randomModel(tinyShape, 1)
	other := randomModel(Config{Dim: 32, HiddenDim: 64, NLayers: 1, NHeads: 2, NKVHeads: 2, VocabSize: 259, SeqLen: 16, SharedClassifier: true}, 2)
	kv, _ := m.NewCache()
	if _, err := m.NewPass().Forward(context.Background(), []Row{{Token: 1, Pos: 0, Cache: kv}, {Token: 2, Pos: 1, Cache: kv}}); err != nil {
		t.Fatal(err)
	}
	foreign, _ := other.NewCache()
	f32, _ := NewKVCache(m.Config)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name  string
		ctx   context.Context
		batch []Row
		want  string
	}{
		{"empty", context.Background(), nil, "empty batch"},
		{"token", context.Background(), []Row{{Token: 259, Pos: 2, Cache: kv}}, "token id 259"},
		{"negative position", context.Background(), []Row{{Token: 1, Pos: -1, Cache: kv}}, "position -1"},
		{"past the context", context.Background(), []Row{{Token: 1, Pos: 64, Cache: kv}}, "position 64"},
		{"no cache", context.Background(), []Row{{Token: 1, Pos: 0}}, "no cache"},
		{"another model's cache", context.Background(), []Row{{Token: 1, Pos: 0, Cache: foreign}}, "not one of this model's"},
		{"a gap", context.Background(), []Row{{Token: 1, Pos: 3, Cache: kv}}, "holds positions 0..1"},
		{"not consecutive", context.Background(), []Row{{Token: 1, Pos: 2, Cache: kv}, {Token: 1, Pos: 4, Cache: kv}}, "not consecutive"},
		{"twice", context.Background(), []Row{{Token: 1, Pos: 2, Cache: kv}, {Token: 1, Pos: 2, Cache: kv}}, "not consecutive"},
		{"cancelled", cancelled, []Row{{Token: 1, Pos: 2, Cache: kv}}, "context canceled"},
	} {
		_, err := m.NewPass().Forward(c.ctx, c.batch)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Forward(%v) = %v; want an error containing %q", c.name, c.batch, err, c.want)
		}
		if kv.Len() != 2 && !errors.Is(err, context.Canceled) {
			t.Errorf("%s: the cache holds %d positions after a refused batch, want 2", c.name, kv.Len())
		}
	}
	// A cache of float32 numbers fits a model of run.c's arithmetic.
	if _, err := m.NewPass().Forward(context.Background(), []Row{{Token: 1, Pos: 0, Cache: f32}}); err != nil {
		t.Errorf("a float32 cache from NewKVCache: %v", err)
	}
	if _, err := (&Model{Config: m.Config}).NewPass().Forward(context.Background(), []Row{{Token: 1, Pos: 0, Cache: kv}}); err == nil || !strings.Contains(err.Error(), "no weights") {
		t.Errorf("a model without weights: %v", err)
	}
}

// TestTiledRowsAreTheirOwn: in llama.cpp's arithmetic, a prompt's rows
// attended by tiles get the same numbers whatever run they are in: the
// last rows of a prompt, run on their own with Row.Tiled, get the logits
// they get in the whole prompt's run, bit for bit; without it they are
// attended a row at a time, as a decoding step's, and round differently.
func TestTiledRowsAreTheirOwn(t *testing.T) {
	m := passModels(t)["smollm2"]
	prompt := ids(100, 7, 259)
	run := func(cut int, tiled bool) []float32 {
		kv, err := m.NewCache()
		if err != nil {
			t.Fatal(err)
		}
		pass := m.NewPass()
		var out []float32
		for _, part := range [][2]int{{0, cut}, {cut, len(prompt)}} {
			if part[0] == part[1] {
				continue
			}
			var batch []Row
			for i := part[0]; i < part[1]; i++ {
				batch = append(batch, Row{Token: prompt[i], Pos: i, Cache: kv, Logits: i == len(prompt)-1, Tiled: tiled})
			}
			logits, err := pass.Forward(context.Background(), batch)
			if err != nil {
				t.Fatal(err)
			}
			if part[1] == len(prompt) {
				out = slices.Clone(logits[0])
			}
		}
		return out
	}
	whole := run(0, false)
	if diff, _ := largestDiff(run(90, true), whole); diff != 0 {
		t.Errorf("the last 10 rows run on their own with Tiled differ from the whole prompt's run by %g; want the same bits", diff)
	}
	if diff, _ := largestDiff(run(90, false), whole); diff == 0 {
		t.Errorf("the last 10 rows run a row at a time gave the whole prompt's bits; the test shows nothing")
	}
}
