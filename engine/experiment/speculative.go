package experiment

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/internal/parallel"
)

// Speculative decoding, measured (notebook 10): the rounds of a run, the
// distribution of the tokens it draws (engine/notebook draws both).

// ExpectedTokensPerPass is how many tokens a round of speculative decoding
// yields on average when each checked proposal is accepted with
// probability alpha, independently: (1 − α^(γ+1)) / (1 − α), from 1 (α = 0)
// to γ+1 (α = 1).
func ExpectedTokensPerPass(alpha float64, gamma int) float64 {
	if alpha >= 1 {
		return float64(gamma + 1)
	}
	return (1 - math.Pow(alpha, float64(gamma+1))) / (1 - alpha)
}

// SpeculativeRun is one speculative generation with what each round
// yielded.
type SpeculativeRun struct {
	Gamma int                       // tokens the draft proposed per round
	Stats decoding.SpeculativeStats // the engine's counts
	// Yields holds, round by round, how many tokens the round added: 1 to
	// γ+1 (the last round can be cut short by the length limit).
	Yields []int
}

// YieldShares returns, for k = 1 … γ+1, the share of the run's rounds that
// added k tokens (measured), and the share the acceptance model predicts
// with the run's measured α: a round stops at the first rejection, so k
// tokens (k ≤ γ) come with probability α^(k−1)·(1 − α), and all γ+1 with
// probability α^γ.
func (r SpeculativeRun) YieldShares() (measured, predicted []float64) {
	measured = make([]float64, r.Gamma+1)
	predicted = make([]float64, r.Gamma+1)
	for _, y := range r.Yields {
		if y >= 1 && y <= r.Gamma+1 {
			measured[y-1]++
		}
	}
	for i := range measured {
		measured[i] /= float64(max(1, len(r.Yields)))
	}
	alpha := r.Stats.AcceptanceRate()
	for k := 1; k <= r.Gamma; k++ {
		predicted[k-1] = math.Pow(alpha, float64(k-1)) * (1 - alpha)
	}
	predicted[r.Gamma] = math.Pow(alpha, float64(r.Gamma))
	return measured, predicted
}

// passCounter is an LM that counts its NextLogits calls.
type passCounter struct {
	decoding.LM
	passes int
}

func (c *passCounter) NextLogits(prefix []int, n int) ([][]float32, error) {
	c.passes++
	return c.LM.NextLogits(prefix, n)
}

// MeasureSpeculative runs decoding.Decode over target with opts, whose
// Decoder must be a decoding.Speculation (its Drafter a draft model,
// decoding.DraftLM, or prompt lookup, decoding.PromptLookup), and records
// how many tokens each round (each pass of the target) added.
func MeasureSpeculative(target decoding.LM, prompt []int, opts decoding.Options) (SpeculativeRun, error) {
	spec, ok := opts.Decoder.(decoding.Speculation)
	if !ok {
		return SpeculativeRun{}, fmt.Errorf("opts.Decoder = %T: MeasureSpeculative measures a decoding.Speculation", opts.Decoder)
	}
	counter := &passCounter{LM: target}
	run := SpeculativeRun{Gamma: spec.Gamma}
	for step, err := range decoding.Decode(context.Background(), counter, prompt, opts) {
		if err != nil {
			return run, err
		}
		if step.ID != decoding.NoToken {
			// A round's tokens are decided after its target pass.
			for len(run.Yields) < counter.passes {
				run.Yields = append(run.Yields, 0)
			}
			run.Yields[counter.passes-1]++
		}
		if step.Stats != nil {
			run.Stats = *step.Stats.Report.(*decoding.SpeculativeStats)
		}
	}
	return run, nil
}

// NextTokenDistribution returns the model's distribution over the token
// after prompt: softmax of its logits divided by temperature (above 0).
func NextTokenDistribution(m *engine.Model, prompt []int, temperature float64) ([]float64, error) {
	if !(temperature > 0) {
		return nil, fmt.Errorf("temperature %v: a distribution needs a temperature above 0", temperature)
	}
	logits, err := m.NewState().Prefill(prompt, 0)
	if err != nil {
		return nil, err
	}
	z := make([]float32, len(logits))
	for i, l := range logits {
		z[i] = float32(float64(l) / temperature)
	}
	return decoding.Softmax(z), nil
}

// TargetDraws counts the tokens the model alone draws after prompt, with
// the engine's sampler at temperature and seeds 1 … draws: counts[id] is
// how many of the draws were token id. It is the first token that
// decoding.Generate would make with each of those seeds.
func TargetDraws(m *engine.Model, prompt []int, temperature float64, draws int) ([]int, error) {
	logits, err := m.NewState().Prefill(prompt, 0)
	if err != nil {
		return nil, err
	}
	counts := make([]int, len(logits))
	for seed := 1; seed <= draws; seed++ {
		s, err := decoding.NewSampler(temperature, 1, uint64(seed))
		if err != nil {
			return nil, err
		}
		id, err := s.Sample(logits)
		if err != nil {
			return nil, err
		}
		counts[id]++
	}
	return counts, nil
}

// SpeculativeDraws counts the first token decoding.Speculation makes after
// prompt, with draft length gamma, at temperature, over seeds 1 … draws.
// The draft always proposes that token, so every count went through the
// acceptance test: kept with probability min(1, p/q), or replaced by a draw
// from the leftover max(0, p − q). The draws are cut into as many
// shares as there are processors (at most 4), each with its own caches, and
// the engine's pool runs them;
// the counts do not depend on how they are shared.
func SpeculativeDraws(target, draft *engine.Model, prompt []int, gamma int, temperature float64, draws int) ([]int, error) {
	workers := max(1, min(4, runtime.GOMAXPROCS(0), draws))
	counts := make([][]int, workers)
	errs := make([]error, workers)
	parallel.For(workers, true, func(_, w0, w1 int) {
		for w := w0; w < w1; w++ {
			counts[w], errs[w] = speculativeFirsts(target, draft, prompt, gamma, temperature, w+1, draws, workers)
		}
	})
	total := make([]int, target.Config.VocabSize)
	for w := range workers {
		if errs[w] != nil {
			return nil, errs[w]
		}
		for id, c := range counts[w] {
			total[id] += c
		}
	}
	return total, nil
}

// speculativeFirsts counts the first tokens of speculative decoding for the
// seeds first, first+step, … up to last.
func speculativeFirsts(target, draft *engine.Model, prompt []int, gamma int, temperature float64, first, last, step int) ([]int, error) {
	t, d := engine.NewModelLM(target, 1), engine.NewModelLM(draft, 1)
	counts := make([]int, target.Config.VocabSize)
	for seed := first; seed <= last; seed += step {
		id := -1
		for step, err := range decoding.Decode(context.Background(), t, prompt, decoding.Options{MaxNewTokens: gamma + 1, Temperature: temperature, Seed: uint64(seed),
			Decoder: decoding.Speculation{Drafter: decoding.DraftLM{LM: d}, Gamma: gamma}}) {
			if err != nil {
				return nil, err
			}
			id = step.ID
			break // the first token is all this needs
		}
		if id < 0 || id >= len(counts) {
			return nil, fmt.Errorf("seed %d: no first token", seed)
		}
		counts[id]++
	}
	return counts, nil
}

// Shares turns counts into shares of their total.
func Shares(counts []int) []float64 {
	total := 0
	for _, c := range counts {
		total += c
	}
	out := make([]float64, len(counts))
	for i, c := range counts {
		if total > 0 {
			out[i] = float64(c) / float64(total)
		}
	}
	return out
}

// TotalVariation is the total variation distance between two distributions
// over the same outcomes, half the sum of |p_i − q_i|: the largest
// difference in the probability they give any set of outcomes, 0 for the
// same distribution and 1 for two that never agree.
func TotalVariation(p, q []float64) float64 {
	if len(p) != len(q) {
		panic(fmt.Sprintf("experiment.TotalVariation: %d outcomes against %d", len(p), len(q)))
	}
	d := 0.0
	for i := range p {
		d += math.Abs(p[i] - q[i])
	}
	return d / 2
}

// TopIDs returns the ids of the k largest probabilities, largest first
// (ties in id order); all of them if k is larger.
func TopIDs(probs []float64, k int) []int {
	ids := make([]int, len(probs))
	for i := range ids {
		ids[i] = i
	}
	sort.SliceStable(ids, func(a, b int) bool { return probs[ids[a]] > probs[ids[b]] })
	return ids[:max(0, min(k, len(ids)))]
}

// TokenCounts counts, for every token of a vocabulary of vocab tokens, how
// many of the samples have it at position pos (samples too short to reach
// pos count for none).
func TokenCounts(samples [][]int, pos, vocab int) []int {
	counts := make([]int, vocab)
	for _, s := range samples {
		if pos < len(s) && s[pos] >= 0 && s[pos] < vocab {
			counts[s[pos]]++
		}
	}
	return counts
}

// SpeculativeTable prints the runs of a sweep over γ, one line each.
func SpeculativeTable(runs []SpeculativeRun) string {
	var b strings.Builder
	for _, r := range runs {
		alpha := r.Stats.AcceptanceRate()
		fmt.Fprintf(&b, "γ = %d: α = %.2f, %.2f tokens per target pass (formula %.2f), %d of %d proposals used\n",
			r.Gamma, alpha, r.Stats.TokensPerTargetPass(), ExpectedTokensPerPass(alpha, r.Gamma), r.Stats.Accepted, r.Stats.Drafted)
	}
	return b.String()
}
