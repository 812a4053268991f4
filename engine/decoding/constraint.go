package decoding

import (
	"errors"
	"fmt"
	"iter"
	"math"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/constrain"
)

// Structured output: a constraint is one more stage of the sampler. Before
// a token is drawn, every token whose text would lead the output out of
// the constraint's language (a JSON Schema, a regular expression, a
// grammar; see package constrain) gets the logit -Inf.
//
// Its place in the chain is with the stages that edit the scores (logit
// bias, penalties, no-repeat n-grams), before temperature, top-k, top-p
// and min-p. Those stages never lift a -Inf: a bias adds a finite number,
// a penalty scales or subtracts, an n-gram ban only adds -Inf. So masking
// before them or after them gives the same logits, and the mask may simply
// be applied to the model's logits before they reach the sampler. It must
// come before the sampling stages so that they judge the distribution that
// will really be drawn from: top-k and top-p of the unconstrained
// distribution could keep only forbidden tokens and leave nothing, and
// temperature and min-p would measure the forbidden tokens' mass. It must
// also come before the sampler's fallback (when the bans leave no token,
// it goes back to the logits it was given), so that the fallback, too,
// stays in the language. With temperature 0 the result is the most likely
// allowed token; otherwise the distribution drawn from is the model's,
// renormalised over the allowed tokens.

// Constraint is a compiled language bound to a tokenizer's vocabulary. It
// remembers the states and masks it has computed, so one Constraint
// should serve every generation with the same language and tokenizer; it
// is safe for concurrent use.
type Constraint struct {
	c   *constrain.Constraint
	tok *engine.Tokenizer
}

// NewConstraint binds a compiled language (constrain.JSONSchema,
// constrain.Regexp, constrain.ParseGrammar) to the tokenizer's
// vocabulary.
func NewConstraint(tok *engine.Tokenizer, g *constrain.Grammar) (*Constraint, error) {
	if tok == nil {
		return nil, fmt.Errorf("no tokenizer (nil *Tokenizer)")
	}
	if g == nil {
		return nil, fmt.Errorf("no language (nil *constrain.Grammar)")
	}
	v, err := tok.ConstraintVocabulary()
	if err != nil {
		return nil, err
	}
	return &Constraint{c: constrain.New(g, v), tok: tok}, nil
}

// String describes the constraint by its vocabulary, for messages.
func (c *Constraint) String() string {
	return fmt.Sprintf("constraint on a vocabulary of %d tokens", c.c.Vocabulary().Size())
}

// Constrain is the underlying constraint over bytes and token ids.
func (c *Constraint) Constrain() *constrain.Constraint { return c.c }

// Guide follows one generation through a Constraint. It is not safe for
// concurrent use; each generation has its own.
type Guide struct {
	c     *Constraint
	state constrain.State
	err   error // why the language could not be followed (a *constrain.AmbiguityError)
	z     []float32
}

// NewGuide starts a generation at the beginning of the language.
func (c *Constraint) NewGuide() *Guide {
	s, err := c.c.StartErr()
	return &Guide{c: c, state: s, err: err}
}

// Err is the error that stopped the guide from following the language:
// a *constrain.AmbiguityError when the language is too ambiguous to
// decide the next token within a constraint's bounds on work. Once it is
// set, Allowed allows no token.
func (g *Guide) Err() error { return g.err }

// State is where the generation stands in the language.
func (g *Guide) State() constrain.State { return g.state }

// Done reports whether the text is complete and nothing may follow: the
// generation ends with FinishConstraint.
func (g *Guide) Done() bool { return g.state.Done() }

// Complete reports whether the text so far is a whole sentence.
func (g *Guide) Complete() bool { return g.state.Complete() }

// Allowed returns the tokens allowed after token prev (the last token of
// the sequence so far) with budget tokens left to generate, this one
// included (0: no limit; see constrain.Constraint.Allowed). The mask must
// not be modified. If the language cannot be followed (see Err), it is
// empty, so that no token outside the language is ever drawn.
func (g *Guide) Allowed(prev, budget int) *constrain.Mask {
	m, err := g.Tokens(prev, budget)
	if err != nil {
		return g.c.c.Allowed(constrain.State{}, 0) // the empty mask
	}
	return m
}

// Tokens is Allowed, with the error that keeps the guide from deciding
// the mask (see Err); the guide keeps it.
func (g *Guide) Tokens(prev, budget int) (*constrain.Mask, error) {
	if g.err != nil {
		return nil, g.err
	}
	var m *constrain.Mask
	if g.afterBOS(prev) {
		m, g.err = g.c.c.TokensBy(g.state, budget, func(id int) []byte { return g.text(prev, id) })
	} else {
		m, g.err = g.c.c.Tokens(g.state, budget)
	}
	if g.err != nil {
		g.err = fmt.Errorf("constraint: %w", g.err)
		return nil, g.err
	}
	return m, nil
}

// Mask returns a copy of the logits with every token the constraint does
// not allow set to -Inf (see Allowed), for the sampler to draw from. ok is
// false when no token is allowed: the generation must end with
// FinishUnsatisfiable, or, if Err is set, with that error. The copy is
// the Guide's and is overwritten by the next call.
func (g *Guide) Mask(logits []float32, prev, budget int) (masked []float32, ok bool) {
	z := g.apply(g.Allowed(prev, budget), logits)
	return z, !allBanned(z)
}

// apply returns the Guide's copy of the logits with the tokens m does not
// allow set to -Inf.
func (g *Guide) apply(m *constrain.Mask, logits []float32) []float32 {
	if cap(g.z) < len(logits) {
		g.z = make([]float32, len(logits))
	}
	z := g.z[:len(logits)]
	copy(z, logits)
	m.Apply(z)
	return z
}

// logMass is the log of the probability softmax(logits) gives to the
// tokens m allows, lse being the logits' logSumExp. It sums over the
// smaller of the allowed and the banned tokens — inside a JSON string
// nearly every token is allowed — and from the banned ones only while
// their complement is large enough for 1 - Σ to lose no precision.
func logMass(logits []float32, lse float64, m *constrain.Mask) float64 {
	sum := func(ids iter.Seq[int]) float64 {
		var s float64
		for id := range ids {
			if id < len(logits) {
				s += math.Exp(float64(logits[id]) - lse)
			}
		}
		return s
	}
	if n := m.Count(); n > m.Size()/2 {
		if rest := 1 - sum(m.Banned()); rest > 1e-6 {
			return math.Log(rest)
		}
	}
	return math.Log(sum(m.All()))
}

// Accept moves the guide past token id, which followed token prev. It
// refuses a token the constraint does not allow.
func (g *Guide) Accept(prev, id int) error {
	if g.err != nil {
		return g.err
	}
	if g.afterBOS(prev) && !g.c.c.Vocabulary().IsEnd(id) {
		next, ok, err := g.c.c.Read(g.state, g.text(prev, id))
		if err != nil {
			g.err = fmt.Errorf("constraint: %w", err)
			return g.err
		}
		if !ok || len(g.text(prev, id)) == 0 {
			return fmt.Errorf("token %d (%q) leads out of the constraint's language", id, g.text(prev, id))
		}
		g.state = next
		return nil
	}
	next, err := g.c.c.Advance(g.state, id)
	if err != nil {
		if _, ok := errors.AsType[*constrain.AmbiguityError](err); ok {
			g.err = fmt.Errorf("constraint: %w", err)
			return g.err
		}
		return fmt.Errorf("constraint: %w", err)
	}
	g.state = next
	return nil
}

// afterBOS reports whether the next token's text is not its usual one: a
// llama2.c tokenizer drops the leading space of the token after BOS.
func (g *Guide) afterBOS(prev int) bool {
	return g.c.tok.ChangesAfter(prev)
}

// text is the bytes token id adds after prev, nil for a token with none.
func (g *Guide) text(prev, id int) []byte {
	if g.c.tok.TokenBytes(id) == nil {
		return nil
	}
	return []byte(g.c.tok.Decode(prev, id))
}
