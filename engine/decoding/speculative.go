package decoding

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"time"

	"github.com/tokenbytoken/course/engine"
)

// SpeculativeOptions control speculative decoding.
type SpeculativeOptions struct {
	// Gamma (γ) is the most tokens the drafter proposes per round.
	Gamma int
	// MaxNewTokens caps the generated tokens; 0 means until the context is
	// full.
	MaxNewTokens int
	// Temperature 0 is greedy decoding; above 0 the target's logits (and a
	// draft model's) are divided by it before softmax, and the output
	// follows the target's tempered distribution exactly.
	Temperature float64
	// Seed makes the random draws reproducible.
	Seed uint64
	// IsEnd reports whether a token ends the text (that token is the last
	// one produced). Nil means no token does.
	IsEnd func(id int) bool
	// NoLogProbs leaves Step.LogProb NaN, not computed (see
	// Options.NoLogProbs).
	NoLogProbs bool
}

// SpeculativeStats describe a speculative generation.
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
// distribution, letting a cheaper drafter guess ahead to go faster. Each
// round:
//
//  1. the drafter proposes up to γ tokens x₁..x_γ, each drawn from a
//     distribution q of its own (a draft model's, see DraftLM) or chosen
//     outright (a point mass, see PromptLookup);
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
// With temperature 0 the target is greedy: a proposal is accepted when it
// is the target's top token, and the output is the target's greedy output.
//
// Each token is yielded as soon as it is decided, with the log-probability
// the target gives it (before temperature). It stops at an end token,
// MaxNewTokens, a full context, or ctx being done (checked after every
// token); the last step says which, and its Stats.Speculative counts the
// rounds. Settings are checked, and a draft model's vocabulary compared
// with the target's, before any model is run: they are the only value
// yielded.
func Speculative(ctx context.Context, target LM, draft Drafter, prompt []int, opts SpeculativeOptions) iter.Seq2[Step, error] {
	return func(yield func(Step, error) bool) {
		if err := opts.check(ctx, target, draft, prompt); err != nil {
			yield(Step{}, err)
			return
		}
		d := newDecoding(ctx, prompt, target.ContextLength(), opts.MaxNewTokens, opts.IsEnd)
		speculate(d, target, draft, opts, yield)
	}
}

// check reports settings that make speculative decoding impossible.
func (opts SpeculativeOptions) check(ctx context.Context, target LM, draft Drafter, prompt []int) error {
	if ctx == nil {
		return errors.New("nil context: pass context.Background() for no deadline")
	}
	if err := checkLM(target); err != nil {
		return fmt.Errorf("target model: %w", err)
	}
	if draft == nil {
		return errors.New("no drafter (nil Drafter)")
	}
	if c, ok := draft.(interface{ checkTarget(LM) error }); ok {
		if err := c.checkTarget(target); err != nil {
			return err
		}
	}
	if err := checkGamma(opts.Gamma); err != nil {
		return err
	}
	if opts.MaxNewTokens < 0 {
		return fmt.Errorf("max new tokens = %d: must be 0 (no limit) or positive", opts.MaxNewTokens)
	}
	if t := opts.Temperature; math.IsNaN(t) || t != 0 && (t < MinTemperature || t > MaxTemperature) {
		return fmt.Errorf("temperature = %v: must be 0 (greedy) or between %v and %v", t, MinTemperature, MaxTemperature)
	}
	if len(prompt) == 0 {
		return fmt.Errorf("empty prompt: need at least one token (BOS)")
	}
	if len(prompt) >= target.ContextLength() {
		return fmt.Errorf("prompt of %d tokens leaves no room in the context of %d tokens", len(prompt), target.ContextLength())
	}
	return nil
}

// checkGamma reports a number of proposals per round below 1.
func checkGamma(gamma int) error {
	if gamma < 1 {
		return fmt.Errorf("speculate γ = %d: the draft must propose at least 1 token per round", gamma)
	}
	return nil
}

// speculate runs the rounds after d's prompt.
func speculate(d *decoding, target LM, draft Drafter, opts SpeculativeOptions, yield func(Step, error) bool) {
	var st SpeculativeStats
	d.stats.Speculative = &st
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
		if g := min(opts.Gamma, limit-d.generated()-1); g > 0 {
			var err error
			prop, err = draft.Draft(DraftRequest{Seq: slices.Clip(d.seq), Max: g, Temperature: opts.Temperature, RNG: rng, IsEnd: d.isEnd})
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

// Speculation decodes speculatively (see Speculative) in Generate: Drafter
// guesses up to Gamma tokens ahead and the model checks them in one pass.
// The output follows the model's distribution at Options.Temperature
// exactly (its greedy output at 0), so the other sampling stages, which
// would change that distribution, must be off.
type Speculation struct {
	Drafter Drafter // a draft model (DraftLM) or prompt lookup (PromptLookup)
	Gamma   int     // the most tokens proposed per round (γ)
}

func (s Speculation) check(o Options) error {
	if err := unconstrained(o, s); err != nil {
		return err
	}
	if s.Drafter == nil {
		return &SettingError{"Decoder", s, "speculative decoding needs a Drafter"}
	}
	if err := checkGamma(s.Gamma); err != nil {
		return &SettingError{"Decoder", s, err.Error()}
	}
	return checkUnsampled(o, true, "speculative decoding samples the model's whole tempered distribution")
}

func (s Speculation) generate(d *decoding, m *engine.Model, opts Options, yield func(Step, error) bool) {
	target := engine.NewModelLM(m, 1)
	o := SpeculativeOptions{Gamma: s.Gamma, MaxNewTokens: opts.MaxNewTokens, Temperature: opts.Temperature, Seed: opts.Seed, IsEnd: d.isEnd, NoLogProbs: opts.NoLogProbs}
	if err := o.check(d.ctx, target, s.Drafter, d.seq); err != nil {
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
	speculate(d, target, s.Drafter, o, yield)
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
