package decoding

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tokenbytoken/course/engine"
)

// SpeculativeStats describe a speculative generation: the Report of
// Speculation.
type SpeculativeStats struct {
	Tokens       []int // the generated tokens
	TargetPasses int   // passes of the target model (one per round)
	DraftPasses  int   // passes of a draft model (one per proposed token; none for prompt lookup)
	Drafted      int   // tokens the drafter proposed
	Accepted     int   // proposed tokens the target accepted
	// Rejected counts the proposals the target turned down. Proposals after
	// a rejected one are discarded unchecked, so Accepted + Rejected can be
	// less than Drafted.
	Rejected int
}

// Decoder is "speculative": SpeculativeStats are the Report of
// Speculation.
func (*SpeculativeStats) Decoder() string { return "speculative" }

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

// speculate runs the rounds after d's prompt.
func speculate(d *decoding, target LM, s Speculation, opts Options, yield func(Step, error) bool) {
	var st SpeculativeStats
	d.stats.Report = &st
	if err := d.ctx.Err(); err != nil {
		d.emit(yield, d.last(finishFor(err)))
		return
	}
	limit := d.positions() - d.prompt
	rng := NewRNG(opts.Seed)
	greedy := opts.Temperature == 0
	vocab := target.VocabSize()

	// out yields a decided token, scored by the target's logits, and
	// reports whether generation goes on.
	out := func(id int, logits []float32) bool {
		st.Tokens = append(st.Tokens, id)
		lp := math.NaN()
		if !opts.NoLogProbs {
			lp = LogProbOf(logits, id)
		}
		return d.emit(yield, d.step(Step{ID: id, LogProb: lp}, ""))
	}
	for {
		// 1. Draft: propose up to γ tokens, never past the length limit
		// (the round always adds one more token of its own).
		var prop Proposal
		if g := min(s.Gamma, limit-d.generated()-1); g > 0 {
			var err error
			prop, err = s.Drafter.Draft(DraftRequest{Seq: slices.Clip(d.seq), Max: g, Temperature: opts.Temperature, RNG: rng, IsEnd: d.isEnd})
			if err == nil {
				err = prop.check(g, vocab)
			}
			if err != nil {
				yield(Step{}, fmt.Errorf("draft model: %w", err))
				return
			}
		}
		g := len(prop.Tokens)
		st.Drafted += g
		st.DraftPasses += prop.Passes

		// 2. Verify: the target scores every proposal in one pass.
		proposed := append(slices.Clip(d.seq), prop.Tokens...)
		rows, err := target.NextLogits(proposed, g+1)
		if err == nil {
			err = checkRows(rows, g+1, vocab)
		}
		if err != nil {
			yield(Step{}, fmt.Errorf("target model: %w", err))
			return
		}
		st.TargetPasses++

		// 3. Accept or reject, left to right.
		rejected := false
		for i, x := range prop.Tokens {
			var accept bool
			var p, q []float64
			if greedy {
				accept = x == Argmax(rows[i])
			} else {
				if p, err = tempered(rows[i], opts.Temperature); err != nil {
					yield(Step{}, fmt.Errorf("target model: %w", err))
					return
				}
				q = prop.q(i)
				accept = float64(rng.Float32())*qOf(q, x) < p[x]
			}
			if !accept {
				rejected = true
				st.Rejected++
				replacement := Argmax(rows[i])
				if !greedy {
					replacement = residual(p, q, x, rng)
				}
				if !out(replacement, rows[i]) {
					return
				}
				break
			}
			st.Accepted++
			if !out(x, rows[i]) {
				return
			}
		}
		// 4. Bonus: everything was accepted, so the target's distribution
		// after the last proposal is already known.
		if !rejected {
			bonus := Argmax(rows[g])
			if !greedy {
				p, err := tempered(rows[g], opts.Temperature)
				if err != nil {
					yield(Step{}, fmt.Errorf("target model: %w", err))
					return
				}
				bonus = pick(p, rng)
			}
			if !out(bonus, rows[g]) {
				return
			}
		}
	}
}

// Speculation decodes speculatively: it generates with the model's
// distribution, letting a cheaper Drafter guess ahead to go faster. Each
// round:
//
//  1. the drafter proposes up to γ tokens x₁..x_γ, each drawn from a
//     distribution q of its own (a draft model's, see DraftLM) or chosen
//     outright (a point mass, see PromptLookup);
//  2. the model scores all of them in one pass (NextLogits with γ+1 rows),
//     giving its distributions p₁..p_{γ+1};
//  3. going left to right, x_i is accepted with probability
//     min(1, p_i(x_i)/q_i(x_i)); at the first rejection a replacement is
//     drawn from the leftover mass max(0, p_i − q_i), normalised, and the
//     rest of the proposals are discarded;
//  4. if all γ are accepted, one bonus token is drawn from p_{γ+1}.
//
// Every round costs one pass of the model and yields 1 to γ+1 tokens, and
// the tokens are distributed exactly as if the model had sampled them
// alone, at Options.Temperature, with Options.Seed. At temperature 0 the
// model is greedy: a proposal is accepted when it is the model's top
// token, and the output is the model's greedy output. The other sampling
// stages, which would change that distribution, must be off.
//
// Each token is yielded as soon as it is decided, with the
// log-probability the model gives it (before temperature). The last
// step's Stats.Report is a *SpeculativeStats, which counts the rounds. A
// draft model's vocabulary is compared with the model's before any pass.
// In Generate, the prompt runs through both models first, as the
// prompt's time.
type Speculation struct {
	Drafter Drafter // a draft model (DraftLM) or prompt lookup (PromptLookup)
	Gamma   int     // the most tokens proposed per round (γ), at least 1
}

func (s Speculation) check(o Options) error {
	if err := unconstrained(o, "speculative decoding"); err != nil {
		return err
	}
	if s.Drafter == nil {
		return &SettingError{"Decoder.Drafter", s.Drafter, "speculative decoding needs a Drafter"}
	}
	if s.Gamma < 1 {
		return &SettingError{"Decoder.Gamma", s.Gamma, "the drafter must propose at least 1 token per round"}
	}
	return checkUnsampled(o, true, "speculative decoding samples the model's whole tempered distribution")
}

// checkTarget reports a drafter that cannot serve target: a draft model
// of another vocabulary, impossible n-gram sizes.
func (s Speculation) checkTarget(target LM) error {
	if c, ok := s.Drafter.(interface{ checkTarget(LM) error }); ok {
		return c.checkTarget(target)
	}
	return nil
}

func (s Speculation) generate(d *decoding, m *engine.Model, opts Options, yield func(Step, error) bool) {
	target := engine.NewModelLM(m, 1)
	if err := s.checkTarget(target); err != nil {
		yield(Step{}, err)
		return
	}
	// Run the prompt through both models first, so that its time counts
	// as the prompt's; the rounds then reuse their caches.
	d.mark = time.Now()
	if err := d.ctx.Err(); err == nil {
		if _, err := target.NextLogits(d.seq, 1); err != nil {
			yield(Step{}, fmt.Errorf("target model: %w", err))
			return
		}
		if dl, ok := s.Drafter.(DraftLM); ok {
			if _, err := dl.LM.NextLogits(d.seq, 1); err != nil {
				yield(Step{}, fmt.Errorf("draft model: %w", err))
				return
			}
		}
	}
	d.prefilled()
	speculate(d, target, s, opts, yield)
}

func (s Speculation) decode(d *decoding, lm LM, opts Options, yield func(Step, error) bool) {
	if err := s.checkTarget(lm); err != nil {
		yield(Step{}, err)
		return
	}
	speculate(d, lm, s, opts, yield)
}

// qOf is the probability q gives token x; a nil q is the point mass on x
// of a drafter that chose x outright.
func qOf(q []float64, x int) float64 {
	if q == nil {
		return 1
	}
	return q[x]
}

// residual draws the replacement for a rejected proposal x from
// max(0, p − q), normalised: the probability mass the target wants and the
// drafter under-proposed. For a point mass (q nil) that is p without x.
func residual(p, q []float64, x int, rng *RNG) int {
	r := make([]float64, len(p))
	var sum float64
	for i := range p {
		qi := 0.0
		if q != nil {
			qi = q[i]
		} else if i == x {
			qi = 1
		}
		r[i] = max(0, p[i]-qi)
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
