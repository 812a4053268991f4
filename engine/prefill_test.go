package engine

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/tokenbytoken/course/engine/gguf"
	"github.com/tokenbytoken/course/engine/internal/quant"
)

// noisyModel builds a model of shape c with normally distributed weights of
// the given standard deviation and unit norm gains.
func noisyModel(c Config, seed uint64, std float64) *Model {
	r := rand.New(rand.NewPCG(seed, 7))
	w := mustWeights(c)
	for _, t := range w.Tensors(c) {
		for i := range t.Data {
			t.Data[i] = float32(r.NormFloat64() * std)
		}
	}
	for _, g := range [][]float32{w.RMSAtt, w.RMSFFN, w.RMSFinal} {
		for i := range g {
			g[i] = 1
		}
	}
	return mustModel(c, w, "noisy")
}

// smallConfig is a model shape with grouped-query attention, an unshared
// classifier and a hidden width that is not a multiple of any block size.
var smallConfig = Config{Dim: 48, HiddenDim: 100, NLayers: 3, NHeads: 6, NKVHeads: 2, VocabSize: 300, SeqLen: 64}

// closeLogits reports the largest difference between two logit vectors
// relative to the largest logit magnitude.
func closeLogits(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	var scale, diff float64
	for i := range want {
		scale = max(scale, math.Abs(float64(want[i])))
		diff = max(diff, math.Abs(float64(got[i]-want[i])))
	}
	if diff > tol*max(scale, 1) {
		t.Fatalf("%s: logits differ by %g (largest logit %g, tolerance %g relative)", what, diff, scale, tol)
	}
}

// sequentialLogits runs tokens one at a time from position 0 and returns a
// copy of the logits after each.
func sequentialLogits(t *testing.T, m *Model, tokens []int) [][]float32 {
	st := m.NewState()
	var out [][]float32
	for pos, id := range tokens {
		l, err := st.Forward(id, pos)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, append([]float32(nil), l...))
	}
	return out
}

func TestPrefillMatchesSequentialForward(t *testing.T) {
	for _, c := range []struct {
		name string
		m    *Model
	}{
		{"random-gqa", noisyModel(Config{Dim: 48, HiddenDim: 100, NLayers: 3, NHeads: 6, NKVHeads: 2, VocabSize: 300, SeqLen: 64}, 1, 0.2)},
		{"stories260K", func() *Model { m, _ := loadReference(t); return m }()},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := c.m
			r := rand.New(rand.NewPCG(3, 3))
			tokens := make([]int, 40)
			for i := range tokens {
				tokens[i] = r.IntN(m.Config.VocabSize)
			}
			want := sequentialLogits(t, m, tokens)

			// The whole run in one pass: last position, and every position.
			st := m.NewState()
			got, err := st.Prefill(tokens, 0)
			if err != nil {
				t.Fatal(err)
			}
			closeLogits(t, "Prefill last position", got, want[len(tokens)-1], 1e-4)
			all, err := m.NewState().PrefillAll(tokens, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tokens {
				closeLogits(t, "PrefillAll", all[i], want[i], 1e-4)
			}

			// In pieces: a prompt, then a batch continuing from the cache,
			// then single decode steps: the cache the batches filled must
			// serve later positions exactly as the sequential one does.
			st = m.NewState()
			if _, err := st.Prefill(tokens[:17], 0); err != nil {
				t.Fatal(err)
			}
			rows, err := st.PrefillAll(tokens[17:30], 17)
			if err != nil {
				t.Fatal(err)
			}
			for i, row := range rows {
				closeLogits(t, "PrefillAll continuing", row, want[17+i], 1e-4)
			}
			for pos := 30; pos < len(tokens); pos++ {
				l, err := st.Forward(tokens[pos], pos)
				if err != nil {
					t.Fatal(err)
				}
				closeLogits(t, "decode after prefill", l, want[pos], 1e-4)
			}
		})
	}
}

func TestPrefillRejectsBadRuns(t *testing.T) {
	m := noisyModel(smallConfig, 1, 0.1)
	st := m.NewState()
	for _, c := range []struct {
		tokens []int
		pos    int
		want   string
	}{
		{nil, 0, "prefill: no tokens"},
		{[]int{1, 2}, 63, "prefill: 2 tokens at position 63 do not fit the model's context of 64 tokens"},
		{make([]int, 65), 0, "prefill: 65 tokens at position 0 do not fit the model's context of 64 tokens"},
		{[]int{1, 300}, 0, "prefill: token 1 has id 300, outside the vocabulary (0..299)"},
		{[]int{1}, -1, "prefill: 1 tokens at position -1 do not fit the model's context of 64 tokens"},
	} {
		_, err := st.Prefill(c.tokens, c.pos)
		if err == nil || err.Error() != c.want {
			t.Errorf("Prefill(%d tokens, %d): got error %v, want %q", len(c.tokens), c.pos, err, c.want)
		}
	}
}

func TestProfileCountsMatchFormula(t *testing.T) {
	m := noisyModel(smallConfig, 1, 0.1)
	st := m.NewState()
	var p Profile
	st.Profile = &p
	if _, err := st.Prefill([]int{1, 2, 3, 4}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Forward(5, 4); err != nil {
		t.Fatal(err)
	}
	c := m.Config
	for part := range NumParts {
		want := c.PartCost(part, 4, 0, 1).Add(c.PartCost(part, 1, 4, 1))
		got := p.Parts[part]
		if got.FLOPs != want.FLOPs || got.Bytes != want.Bytes {
			t.Errorf("%v: counted %d FLOPs %d bytes, formula says %d and %d", part, got.FLOPs, got.Bytes, want.FLOPs, want.Bytes)
		}
	}
	if p.Tokens != 5 || p.Passes != 2 {
		t.Errorf("counted %d tokens in %d passes, want 5 in 2", p.Tokens, p.Passes)
	}
	// Independently of the formula: a decode step multiplies every weight
	// matrix by one vector, 2 FLOPs per weight. The parameter count holds
	// those matrices plus the embedding (only copied) and the norm gains.
	// Attention and the elementwise work add a little on top.
	matrixWeights := c.NumParams() - int64(c.VocabSize*c.Dim) - int64(c.Dim*(2*c.NLayers+1))
	var step int64
	for _, s := range c.StepCost(0) {
		step += s.FLOPs
	}
	if lo, hi := 2*matrixWeights, 2*matrixWeights*11/10; step < lo || step > hi {
		t.Errorf("a decode step counts %d FLOPs, want between %d and %d", step, lo, hi)
	}
}

// TestByTokensRuns checks how a pass's tokens are shared among the cores:
// every token once, one run per core at most, and every run but the last
// a whole number of the matrix kernel's inputs (Matrix.Inputs), so that
// no core multiplies tokens one at a time that its kernel could take
// together.
func TestByTokensRuns(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	q41, err := quant.NewMatrix(gguf.Q4_1, 8, 64, make([]byte, 8*2*20))
	if err != nil {
		t.Fatal(err)
	}
	f32, err := quant.NewMatrixF32(8, 64, make([]float32, 8*64))
	if err != nil {
		t.Fatal(err)
	}
	s := randomModel(Config{Dim: 8, HiddenDim: 16, NLayers: 1, NHeads: 2, NKVHeads: 2, VocabSize: 10, SeqLen: 8}, 1).NewState()
	for _, w := range []*Matrix{q41, f32} {
		step := w.Inputs()
		for n := 1; n <= 40; n++ {
			var mu sync.Mutex
			var runs [][2]int
			s.byTokens(n, w, parallelThreshold, func(_, i0, i1 int) {
				mu.Lock()
				runs = append(runs, [2]int{i0, i1})
				mu.Unlock()
			})
			slices.SortFunc(runs, func(a, b [2]int) int { return a[0] - b[0] })
			next := 0
			for k, r := range runs {
				if r[0] != next || r[1] <= r[0] {
					t.Fatalf("%v, %d tokens: runs %v do not cover 0..%d once", w.Type(), n, runs, n)
				}
				if k < len(runs)-1 && (r[1]-r[0])%step != 0 {
					t.Fatalf("%v, %d tokens: run %v is not a multiple of %d tokens (runs %v)", w.Type(), n, r, step, runs)
				}
				next = r[1]
			}
			if next != n || len(runs) > 2 {
				t.Fatalf("%v, %d tokens: runs %v; want 0..%d in at most 2", w.Type(), n, runs, n)
			}
		}
	}
}
