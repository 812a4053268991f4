package decoding

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"gonum.org/v1/gonum/stat/distuv"
)

// perturbedModel copies m and adds Gaussian noise of relative size scale
// to every weight: a draft model that mostly agrees with m.
func perturbedModel(m *engine.Model, scale float64, seed uint64) *engine.Model {
	r := rand.New(rand.NewPCG(seed, 5))
	c := m.Config
	w := mustWeights(c)
	src := m.Weights().Tensors(c)
	for i, t := range w.Tensors(c) {
		var ss float64
		for _, v := range src[i].Data {
			ss += float64(v) * float64(v)
		}
		std := math.Sqrt(ss / float64(len(src[i].Data)))
		for j, v := range src[i].Data {
			t.Data[j] = v + float32(r.NormFloat64()*std*scale)
		}
	}
	return mustModel(c, w, "perturbed")
}

func TestSpeculativeGreedyIsTargetGreedy(t *testing.T) {
	target, tok := loadReference(t)
	prompt, err := tok.Encode("Once upon a time", true, false)
	if err != nil {
		t.Fatal(err)
	}
	const n = 150
	want := greedyByForward(t, target, prompt, n, tok.IsEnd)
	small := target.Config
	small.Dim, small.HiddenDim, small.NLayers, small.NHeads, small.NKVHeads = 32, 64, 2, 4, 2
	for _, c := range []struct {
		name      string
		draft     *engine.Model
		gamma     int
		allAccept bool
	}{
		{"draft is the target", target, 4, true},
		{"perturbed copy", perturbedModel(target, 0.1, 1), 3, false},
		{"small random model", noisyModel(small, 2, 0.3), 2, false},
		{"perturbed copy, long drafts", perturbedModel(target, 0.05, 2), 8, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tl := engine.NewModelLM(target, 1)
			st, err := speculative(tl, engine.NewModelLM(c.draft, 1), prompt,
				Options{MaxNewTokens: n, IsEnd: tok.IsEnd, Decoder: Speculation{Gamma: c.gamma}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			sameTokens(t, "speculative greedy vs target greedy", st.Tokens, want)
			if c.allAccept && st.Accepted != st.Drafted {
				t.Errorf("identical draft: %d of %d proposals accepted", st.Accepted, st.Drafted)
			}
			// Every round is one target pass and adds its accepted
			// proposals plus one token of the target's own.
			if int64(st.TargetPasses) != tl.Passes || st.Finish == FinishLength && st.Accepted+st.TargetPasses != len(st.Tokens) {
				t.Errorf("%d target passes (adapter counted %d) for %d tokens with %d accepted, finish %q", st.TargetPasses, tl.Passes, len(st.Tokens), st.Accepted, st.Finish)
			}
			t.Logf("γ=%d: acceptance %.2f, %.2f tokens per target pass", c.gamma, st.AcceptanceRate(), st.TokensPerTargetPass())
		})
	}
}

// chiSquareP is the p-value of Pearson's chi-square statistic for counts
// against expected probabilities, with df degrees of freedom.
func chiSquareP(counts []int, probs []float64, df int) (stat, p float64) {
	var n int
	for _, c := range counts {
		n += c
	}
	for i, c := range counts {
		e := float64(n) * probs[i]
		stat += (float64(c) - e) * (float64(c) - e) / e
	}
	return stat, distuv.ChiSquared{K: float64(df)}.Survival(stat)
}

// The sampled tests below run a fixed seed, so they are deterministic. Each
// rejects when its chi-square p-value is below 1e-4: were the seed drawn
// at random, a correct implementation would fail one of them with
// probability about 1e-4 (the false-failure rate); an implementation that
// returns the draft's distribution, or mixes the two, fails by hundreds of
// standard deviations (see the control in each test).
const falseFailureRate = 1e-4

func TestSpeculativeSamplesFollowTheTarget(t *testing.T) {
	// Target and draft disagree in both directions, so acceptance,
	// rejection and the residual draw all happen often.
	p := []float64{0.1, 0.2, 0.3, 0.4}
	q := []float64{0.4, 0.3, 0.2, 0.1}
	const n = 40000
	st, err := speculative(fixedLM(p...), fixedLM(q...), []int{0},
		Options{MaxNewTokens: n, Temperature: 1, Seed: 42, Decoder: Speculation{Gamma: 3}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, len(p))
	for _, id := range st.Tokens {
		counts[id]++
	}
	stat, pv := chiSquareP(counts, p, len(p)-1)
	if pv < falseFailureRate {
		t.Errorf("speculative samples do not follow the target: counts %v, chi-square %.1f, p-value %.2g", counts, stat, pv)
	}
	// Control: the same statistic rejects the draft's distribution.
	if _, pq := chiSquareP(counts, q, len(q)-1); pq >= falseFailureRate {
		t.Errorf("the test cannot tell the draft from the target (p-value %.2g)", pq)
	}
	// α here is Σ min(p, q) = 0.1+0.2+0.2+0.1 = 0.6; with γ = 3 a round
	// yields (1-α^4)/(1-α) = 2.176 tokens on average.
	if a := st.AcceptanceRate(); math.Abs(a-0.6) > 0.02 {
		t.Errorf("acceptance rate %.3f, expected about 0.6", a)
	}
	if r := st.TokensPerTargetPass(); math.Abs(r-2.176) > 0.05 {
		t.Errorf("%.3f tokens per target pass, expected about 2.176", r)
	}
}

// markovLM predicts the next token from the last one through a table.
func markovLM(table [][]float64) *tableLM {
	return &tableLM{vocab: len(table), probs: func(prefix []int) []float64 { return table[prefix[len(prefix)-1]] }}
}

func TestSpeculativeSamplesFollowTheTargetInContext(t *testing.T) {
	// The target's next-token distribution depends on the previous token,
	// so any misalignment between proposals and the target's rows (the
	// off-by-one that NextLogits with γ+1 rows invites) shows up in the
	// transition counts.
	target := [][]float64{{0.6, 0.3, 0.1}, {0.1, 0.1, 0.8}, {0.3, 0.4, 0.3}}
	draft := [][]float64{{0.2, 0.5, 0.3}, {0.3, 0.3, 0.4}, {0.6, 0.2, 0.2}}
	const n = 60000
	st, err := speculative(markovLM(target), markovLM(draft), []int{0},
		Options{MaxNewTokens: n, Temperature: 1, Seed: 7, Decoder: Speculation{Gamma: 4}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	check := func(tokens []int, table [][]float64) (float64, float64) {
		counts := make([][]int, 3)
		for i := range counts {
			counts[i] = make([]int, 3)
		}
		prev := 0
		for _, id := range tokens {
			counts[prev][id]++
			prev = id
		}
		var stat float64
		for a := range counts {
			s, _ := chiSquareP(counts[a], table[a], 2)
			stat += s
		}
		return stat, distuv.ChiSquared{K: 6}.Survival(stat)
	}
	if stat, pv := check(st.Tokens, target); pv < falseFailureRate {
		t.Errorf("transitions do not follow the target: chi-square %.1f on 6 degrees of freedom, p-value %.2g", stat, pv)
	}
	if _, pv := check(st.Tokens, draft); pv >= falseFailureRate {
		t.Errorf("the test cannot tell the draft from the target (p-value %.2g)", pv)
	}
}

func TestSpeculativeRejectsBadSettings(t *testing.T) {
	target := fixedLM(0.5, 0.5)
	for _, c := range []struct {
		draft  *tableLM
		prompt []int
		opts   Options
		want   string
	}{
		{fixedLM(0.5, 0.5), []int{0}, Options{Decoder: Speculation{Gamma: 0}}, "Decoder.Gamma = 0: the drafter must propose at least 1 token per round"},
		{fixedLM(0.5, 0.5), []int{0}, Options{Decoder: Speculation{Gamma: -2}}, "Decoder.Gamma = -2: the drafter must propose at least 1 token per round"},
		{fixedLM(0.2, 0.3, 0.5), []int{0}, Options{Decoder: Speculation{Gamma: 3}}, "draft model has a vocabulary of 3 tokens but the target has 2: speculative decoding needs both to share one tokenizer"},
		{fixedLM(0.5, 0.5), []int{0}, Options{Temperature: -1, Decoder: Speculation{Gamma: 3}}, "Temperature = -1: must be 0 (greedy) or between 0.001 and 100"},
		{fixedLM(0.5, 0.5), nil, Options{Decoder: Speculation{Gamma: 3}}, "empty prompt: need at least one token (BOS)"},
	} {
		_, err := speculative(target, c.draft, c.prompt, c.opts, nil)
		if err == nil || err.Error() != c.want {
			t.Errorf("%+v: got error %v, want %q", c.opts, err, c.want)
		}
		if target.calls+c.draft.calls != 0 {
			t.Errorf("%+v: models were run before the settings were checked", c.opts)
		}
	}
	m, _ := loadReference(t)
	_, err := speculative(engine.NewModelLM(m, 1), engine.NewModelLM(m, 1), make([]int, 600), Options{Decoder: Speculation{Gamma: 2}}, nil)
	if want := "prompt of 600 tokens leaves no room in the model's context of 512 tokens"; err == nil || err.Error() != want {
		t.Errorf("prompt longer than the context: got error %v, want %q", err, want)
	}
}
