package engine

import (
	"fmt"
	"math"
)

// SpeculativeOptions control speculative decoding.
type SpeculativeOptions struct {
	// Gamma (γ) is the number of tokens the draft model proposes per round.
	Gamma int
	// MaxNewTokens caps the generated tokens; 0 means until the context is
	// full.
	MaxNewTokens int
	// Temperature 0 is greedy decoding; above 0 both models' logits are
	// divided by it before softmax, and the output follows the target's
	// tempered distribution exactly.
	Temperature float64
	// Seed makes the random draws reproducible.
	Seed uint64
	// IsEnd reports whether a token ends the text (that token is the last
	// one produced). Nil means no token does.
	IsEnd func(id int) bool
}

// SpeculativeStats describe a speculative generation.
type SpeculativeStats struct {
	Tokens       []int        // the generated tokens
	Finish       FinishReason // why generation stopped
	TargetPasses int          // passes of the target model (one per round)
	DraftPasses  int          // passes of the draft model (one per proposed token)
	Drafted      int          // tokens the draft proposed
	Accepted     int          // proposed tokens the target accepted
	// Rejected counts the proposals the target turned down. Proposals after
	// a rejected one are discarded unchecked, so Accepted + Rejected can be
	// less than Drafted.
	Rejected int
}

// AcceptanceRate estimates α, the probability that the target accepts a
// proposal it checks: accepted / (accepted + rejected). It is the α of the
// formula in TokensPerTargetPass. (The share of all proposals that end up
// used, Accepted/Drafted, is lower: a rejection discards the rest of its
// round.)
func (s SpeculativeStats) AcceptanceRate() float64 {
	if s.Accepted+s.Rejected == 0 {
		return 0
	}
	return float64(s.Accepted) / float64(s.Accepted+s.Rejected)
}

// TokensPerTargetPass is how many tokens each pass of the target produced.
// Plain decoding makes exactly 1; with γ proposals accepted at rate α the
// expected value is (1 − α^(γ+1)) / (1 − α).
func (s SpeculativeStats) TokensPerTargetPass() float64 {
	if s.TargetPasses == 0 {
		return 0
	}
	return float64(len(s.Tokens)) / float64(s.TargetPasses)
}

// Speculative generates a continuation of prompt with the target model's
// distribution, using a cheaper draft model to go faster. Each round:
//
//  1. the draft proposes γ tokens x₁..x_γ one at a time, sampling each from
//     its own distribution q;
//  2. the target scores all of them in one pass (NextLogits with γ+1 rows),
//     giving its distributions p₁..p_{γ+1};
//  3. going left to right, x_i is accepted with probability
//     min(1, p_i(x_i)/q_i(x_i)); at the first rejection a replacement is
//     drawn from the leftover mass max(0, p_i − q_i), normalised, and the
//     rest of the proposals are discarded;
//  4. if all γ are accepted, one bonus token is drawn from p_{γ+1}.
//
// Every round costs one target pass and yields 1 to γ+1 tokens, and the
// tokens are distributed exactly as if the target had sampled them alone.
// With temperature 0 both models are greedy: a proposal is accepted when it
// is the target's top token, and the output is the target's greedy output.
//
// emit, if not nil, receives each token as soon as it is decided, with the
// log-probability the target gives it (before temperature); returning
// false stops generation. Settings are checked, and the two models'
// vocabularies compared, before any model is run.
func Speculative(target, draft LM, prompt []int, opts SpeculativeOptions, emit func(id int, logProb float64) bool) (SpeculativeStats, error) {
	var st SpeculativeStats
	if err := checkLM(target); err != nil {
		return st, fmt.Errorf("target model: %w", err)
	}
	if err := checkLM(draft); err != nil {
		return st, fmt.Errorf("draft model: %w", err)
	}
	if opts.Gamma < 1 {
		return st, fmt.Errorf("speculate γ = %d: the draft must propose at least 1 token per round", opts.Gamma)
	}
	if opts.MaxNewTokens < 0 {
		return st, fmt.Errorf("max new tokens = %d: must be 0 (no limit) or positive", opts.MaxNewTokens)
	}
	if t := opts.Temperature; math.IsNaN(t) || t != 0 && (t < MinTemperature || t > MaxTemperature) {
		return st, fmt.Errorf("temperature = %v: must be 0 (greedy) or between %v and %v", t, MinTemperature, MaxTemperature)
	}
	if draft.VocabSize() != target.VocabSize() {
		return st, fmt.Errorf("draft model has a vocabulary of %d tokens but the target has %d: speculative decoding needs both to share one tokenizer", draft.VocabSize(), target.VocabSize())
	}
	if len(prompt) == 0 {
		return st, fmt.Errorf("empty prompt: need at least one token (BOS)")
	}
	context := min(target.ContextLength(), draft.ContextLength())
	if len(prompt) >= context {
		return st, fmt.Errorf("prompt of %d tokens leaves no room in the context of %d tokens", len(prompt), context)
	}
	isEnd := opts.IsEnd
	if isEnd == nil {
		isEnd = func(int) bool { return false }
	}
	limit := context - len(prompt)
	if opts.MaxNewTokens > 0 {
		limit = min(limit, opts.MaxNewTokens)
	}
	rng := NewRNG(opts.Seed)
	greedy := opts.Temperature == 0
	seq := append([]int(nil), prompt...)

	// out records a decided token, scored by the target's logits, and
	// reports whether generation goes on.
	out := func(id int, logits []float32) bool {
		st.Tokens = append(st.Tokens, id)
		seq = append(seq, id)
		switch {
		case isEnd(id):
			st.Finish = FinishEOS
		case len(st.Tokens) == limit && limit == opts.MaxNewTokens:
			st.Finish = FinishLength
		case len(st.Tokens) == limit:
			st.Finish = FinishContext
		}
		if emit != nil && !emit(id, logProbOf(logits, id)) && st.Finish == "" {
			st.Finish = FinishStopped
		}
		return st.Finish == ""
	}

	var qs [][]float64
	for {
		// 1. Draft: propose up to γ tokens, never past the length limit
		// (the round always adds one more token of its own).
		g := min(opts.Gamma, limit-len(st.Tokens)-1)
		proposed := seq
		qs = qs[:0]
		for range g {
			rows, err := draft.NextLogits(proposed, 1)
			if err == nil {
				err = checkRows(rows, 1, draft.VocabSize())
			}
			if err != nil {
				return st, fmt.Errorf("draft model: %w", err)
			}
			st.DraftPasses++
			var x int
			if greedy { // only the order of the logits matters
				x = Argmax(rows[0])
				qs = append(qs, nil)
			} else {
				q, err := tempered(rows[0], opts.Temperature)
				if err != nil {
					return st, fmt.Errorf("draft model: %w", err)
				}
				x = pick(q, rng)
				qs = append(qs, q)
			}
			proposed = append(proposed, x)
			if isEnd(x) {
				break // nothing after the end of the text matters
			}
		}
		g = len(qs)
		drafts := append([]int(nil), proposed[len(seq):]...)
		st.Drafted += g

		// 2. Verify: the target scores every proposal in one pass.
		rows, err := target.NextLogits(proposed, g+1)
		if err == nil {
			err = checkRows(rows, g+1, target.VocabSize())
		}
		if err != nil {
			return st, fmt.Errorf("target model: %w", err)
		}
		st.TargetPasses++

		// 3. Accept or reject, left to right.
		goOn, rejected := true, false
		for i, x := range drafts {
			var accept bool
			var p []float64
			if greedy {
				accept = x == Argmax(rows[i])
			} else {
				if p, err = tempered(rows[i], opts.Temperature); err != nil {
					return st, fmt.Errorf("target model: %w", err)
				}
				accept = float64(rng.Float32())*qs[i][x] < p[x]
			}
			if !accept {
				rejected = true
				st.Rejected++
				replacement := Argmax(rows[i])
				if !greedy {
					replacement = residual(p, qs[i], rng)
				}
				goOn = out(replacement, rows[i])
				break
			}
			st.Accepted++
			if goOn = out(x, rows[i]); !goOn {
				break
			}
		}
		// 4. Bonus: everything was accepted, so the target's distribution
		// after the last proposal is already known.
		if goOn && !rejected {
			bonus := Argmax(rows[g])
			if !greedy {
				p, err := tempered(rows[g], opts.Temperature)
				if err != nil {
					return st, fmt.Errorf("target model: %w", err)
				}
				bonus = pick(p, rng)
			}
			goOn = out(bonus, rows[g])
		}
		if !goOn {
			return st, nil
		}
	}
}

// FinishStopped: the caller asked to stop.
const FinishStopped FinishReason = "stopped"

// tempered turns logits into probabilities at a temperature, or returns an
// error when dividing by it overflows float32.
func tempered(logits []float32, temperature float64) ([]float64, error) {
	z := make([]float32, len(logits))
	for i, v := range logits {
		z[i] = float32(float64(v) / temperature)
		if math.IsInf(float64(z[i]), 1) {
			return nil, fmt.Errorf("token %d's logit %v divided by the temperature %v overflows float32", i, v, temperature)
		}
	}
	return Softmax(z), nil
}

// checkRows checks what an LM answered: n rows of vocab logits each, every
// one a number (or -Inf) and not all -Inf.
func checkRows(rows [][]float32, n, vocab int) error {
	if len(rows) != n {
		return fmt.Errorf("asked for %d rows of logits, got %d", n, len(rows))
	}
	for i, r := range rows {
		if len(r) != vocab {
			return fmt.Errorf("row %d has %d logits for a vocabulary of %d", i, len(r), vocab)
		}
		if err := checkScores(r, fmt.Sprintf("row %d of its logits", i)); err != nil {
			return err
		}
	}
	return nil
}

// pick draws a token from the distribution p.
func pick(p []float64, rng *RNG) int {
	coin := float64(rng.Float32())
	var cdf float64
	for i, v := range p {
		cdf += v
		if coin < cdf {
			return i
		}
	}
	// Rounding left the total just under 1: take the last possible token.
	for i := len(p) - 1; i > 0; i-- {
		if p[i] > 0 {
			return i
		}
	}
	return 0
}

// residual draws the replacement for a rejected proposal from
// max(0, p − q), normalised: the probability mass the target wants and the
// draft under-proposed.
func residual(p, q []float64, rng *RNG) int {
	r := make([]float64, len(p))
	var sum float64
	for i := range p {
		r[i] = max(0, p[i]-q[i])
		sum += r[i]
	}
	if sum <= 0 { // p = q up to rounding: nothing to correct
		return pick(p, rng)
	}
	for i := range r {
		r[i] /= sum
	}
	return pick(r, rng)
}

// logProbOf is log softmax(logits)[id], without allocating.
func logProbOf(logits []float32, id int) float64 {
	mx := math.Inf(-1)
	for _, z := range logits {
		mx = max(mx, float64(z))
	}
	var sum float64
	for _, z := range logits {
		sum += math.Exp(float64(z) - mx)
	}
	return float64(logits[id]) - mx - math.Log(sum)
}
