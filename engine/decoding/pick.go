package decoding

import (
	"fmt"
	"math"

	"github.com/tokenbytoken/course/engine"
)

// Pick decodes one token at a time, choosing each with the function
// itself from the logits after the sequence so far: Argmax for greedy
// decoding (a nil Pick means Argmax), or a sampler written outside the
// engine, such as the exercises'. It replaces the Sampler, so the
// sampling settings of Options must be off; a Pick that keeps state (a
// random number generator) must not serve two generations at once.
//
// A Pick that returns an id outside the vocabulary — such as NoToken,
// which Argmax returns when no logit is a number — ends the generation
// with an error: the loop never appends a token that does not exist.
type Pick func(logits []float32) int

func (p Pick) check(o Options) error {
	if err := unconstrained(o, "Pick"); err != nil {
		return err
	}
	return checkUnsampled(o, false, "Pick chooses the tokens itself")
}

func (p Pick) generate(d *decoding, m *engine.Model, opts Options, yield func(Step, error) bool) {
	d.cached(m, p.chooser(m.Config.VocabSize, opts), yield)
}

func (p Pick) decode(d *decoding, lm LM, opts Options, yield func(Step, error) bool) {
	d.sample(yield, p.chooser(lm.VocabSize(), opts), lmNext(lm))
}

// chooser picks with p among vocab tokens, with the log-probability
// unless opts.NoLogProbs.
func (p Pick) chooser(vocab int, opts Options) choose {
	if p == nil {
		p = Argmax
	}
	return func(logits []float32, seq []int) (Step, error) {
		id := p(logits)
		if id < 0 || id >= vocab {
			return Step{}, fmt.Errorf("pick returned token id %d after %d tokens, outside the vocabulary (0..%d)", id, len(seq), vocab-1)
		}
		lp := math.NaN()
		if !opts.NoLogProbs {
			lp = LogProbOf(logits, id)
		}
		return Step{ID: id, LogProb: lp}, nil
	}
}
