package decoding

import (
	"fmt"
	"math"
)

// A Drafter guesses the tokens that come next, for speculative decoding to
// check (see Speculative). Whatever it guesses, the target's verification
// keeps the output exactly the target's: a good drafter only makes it
// faster. A draft model is one drafter (DraftLM); looking the last words
// up earlier in the text is another (PromptLookup).
type Drafter interface {
	// Draft proposes up to r.Max tokens to follow r.Seq. It may propose
	// fewer, or none (the target then makes one token alone).
	Draft(r DraftRequest) (Proposal, error)
}

// DraftRequest is what a Drafter is asked for in one round.
type DraftRequest struct {
	Seq []int // the prompt and every token decided so far; not to be modified
	Max int   // the most tokens to propose (at least 1)
	// Temperature is the target's (0: greedy). A drafter that samples
	// draws at it from its own distribution, with RNG.
	Temperature float64
	RNG         *RNG
	// IsEnd reports whether a token ends the text: nothing after it is
	// used, so a drafter stops proposing after one.
	IsEnd func(id int) bool
}

// Proposal is what a Drafter proposes in one round.
type Proposal struct {
	Tokens []int
	// Q[i] is the distribution over the vocabulary that Tokens[i] was drawn
	// from, which the acceptance rule needs when sampling (Temperature
	// above 0). A nil Q, or a nil Q[i], means the token was chosen
	// outright: q is a point mass on it, accepted with probability p(x).
	Q [][]float64
	// Passes counts the forward passes of a draft model spent on the
	// proposal.
	Passes int
}

// q is the distribution of proposal i (nil for a point mass).
func (p Proposal) q(i int) []float64 {
	if i < len(p.Q) {
		return p.Q[i]
	}
	return nil
}

// check reports a proposal that is longer than asked, names tokens outside
// the vocabulary, or has distributions of the wrong size.
func (p Proposal) check(max, vocab int) error {
	if len(p.Tokens) > max {
		return fmt.Errorf("proposed %d tokens when asked for at most %d", len(p.Tokens), max)
	}
	if len(p.Q) > len(p.Tokens) {
		return fmt.Errorf("gave %d distributions for %d proposed tokens", len(p.Q), len(p.Tokens))
	}
	for i, id := range p.Tokens {
		if id < 0 || id >= vocab {
			return fmt.Errorf("proposed token id %d, outside the vocabulary (0..%d)", id, vocab-1)
		}
		if q := p.q(i); q != nil && len(q) != vocab {
			return fmt.Errorf("proposal %d's distribution has %d probabilities for a vocabulary of %d", i, len(q), vocab)
		}
	}
	return nil
}

// DraftLM drafts with a smaller language model that shares the target's
// tokenizer: it proposes one token per pass, its top token when greedy,
// else a draw from its own tempered distribution q. Near the end of its
// context it proposes fewer tokens, or none.
type DraftLM struct {
	LM LM
}

// Draft implements Drafter.
func (d DraftLM) Draft(r DraftRequest) (Proposal, error) {
	var p Proposal
	seq := r.Seq[:len(r.Seq):len(r.Seq)] // appending never writes into the caller's array
	for range r.Max {
		if len(seq) >= d.LM.ContextLength() {
			break
		}
		rows, err := d.LM.NextLogits(seq, 1)
		if err == nil {
			err = checkRows(rows, 1, d.LM.VocabSize())
		}
		if err != nil {
			return p, err
		}
		p.Passes++
		var x int
		if r.Temperature == 0 { // only the order of the logits matters
			x = Argmax(rows[0])
			p.Q = append(p.Q, nil)
		} else {
			q, err := tempered(rows[0], r.Temperature)
			if err != nil {
				return p, err
			}
			x = pick(q, r.RNG)
			p.Q = append(p.Q, q)
		}
		p.Tokens = append(p.Tokens, x)
		seq = append(seq, x)
		if r.IsEnd != nil && r.IsEnd(x) {
			break // nothing after the end of the text matters
		}
	}
	return p, nil
}

// checkTarget reports a draft model that cannot serve target.
func (d DraftLM) checkTarget(target LM) error {
	if err := checkLM(d.LM); err != nil {
		return fmt.Errorf("draft model: %w", err)
	}
	if d.LM.VocabSize() != target.VocabSize() {
		return fmt.Errorf("draft model has a vocabulary of %d tokens but the target has %d: speculative decoding needs both to share one tokenizer", d.LM.VocabSize(), target.VocabSize())
	}
	return nil
}

// PromptLookup drafts without a model, by n-gram lookup in the text so
// far ("prompt lookup decoding"): it finds the last MaxN tokens (or, if
// they never occurred before, the last MaxN−1, … down to MinN) at an
// earlier place in the prompt or the output, and proposes the tokens that
// followed there. Text that repeats its input — a rewrite, a summary that
// quotes, code that is edited — is guessed many tokens at a time; text
// that does not gets no proposal, and costs what plain decoding costs.
//
// It chooses its tokens outright, so each proposal is a point mass, and
// the latest earlier occurrence wins. The zero value matches 3 down to 1
// tokens.
type PromptLookup struct {
	MaxN int // the longest n-gram looked up (0 means 3)
	MinN int // the shortest (0 means 1)
}

// Draft implements Drafter.
func (l PromptLookup) Draft(r DraftRequest) (Proposal, error) {
	lo, hi, err := l.sizes()
	if err != nil {
		return Proposal{}, err
	}
	seq := r.Seq
	for n := min(hi, len(seq)-1); n >= lo; n-- {
		tail := seq[len(seq)-n:]
		// The latest start before the tail's own whose n tokens match it.
		for start := len(seq) - n - 1; start >= 0; start-- {
			if !equalInts(seq[start:start+n], tail) {
				continue
			}
			next := seq[start+n : min(start+n+r.Max, len(seq))]
			var p Proposal
			for _, id := range next {
				p.Tokens = append(p.Tokens, id)
				if r.IsEnd != nil && r.IsEnd(id) {
					break
				}
			}
			return p, nil
		}
	}
	return Proposal{}, nil
}

// sizes are the longest and shortest n-grams to look up.
func (l PromptLookup) sizes() (lo, hi int, err error) {
	lo, hi = l.MinN, l.MaxN
	if lo == 0 {
		lo = 1
	}
	if hi == 0 {
		hi = max(3, lo)
	}
	if lo < 1 || hi < lo {
		return 0, 0, fmt.Errorf("prompt lookup of %d down to %d tokens: need MaxN ≥ MinN ≥ 1 (0 takes the default)", l.MaxN, l.MinN)
	}
	return lo, hi, nil
}

// checkTarget reports impossible n-gram sizes before any work.
func (l PromptLookup) checkTarget(LM) error {
	_, _, err := l.sizes()
	return err
}

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
