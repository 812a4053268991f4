package constrain

import (
	"fmt"
	"math"
	"sync"
)

// Constraint is a Grammar bound to a Vocabulary: it says, state by state,
// which tokens may come next. It remembers the states it has seen and
// their masks, so it is worth keeping for the whole run; it is safe for
// concurrent use by several generations.
//
// Every call does a bounded amount of work (MaxWork, MaxStacks): on a
// grammar too ambiguous to follow within it, a call returns an
// *AmbiguityError instead of running on or answering only in part.
type Constraint struct {
	g  *Grammar
	v  *Vocabulary
	mu sync.Mutex
	c  *cache
	w  meter
}

// New binds g to the vocabulary v.
func New(g *Grammar, v *Vocabulary) *Constraint {
	c := &Constraint{g: g, v: v}
	c.c = newCache(g, &c.w)
	return c
}

// Vocabulary is the vocabulary the constraint was made for.
func (c *Constraint) Vocabulary() *Vocabulary { return c.v }

// Grammar is the constraint's language.
func (c *Constraint) Grammar() *Grammar { return c.g }

// State is where a generation stands in the language: what the text read
// so far allows next. It is a small value; the zero State is not valid.
type State struct {
	d *dstate
	n int // bytes read since the start
}

// Complete reports whether the text so far is a whole sentence of the
// language: an end token is allowed.
func (s State) Complete() bool { return s.d != nil && s.d.accept }

// Done reports whether the text is complete and nothing may follow: the
// generation should end here.
func (s State) Done() bool { return s.d != nil && s.d.final() }

// Remaining is the fewest bytes that would complete the text.
func (s State) Remaining() int {
	if s.d == nil {
		return 0
	}
	return int(s.d.dist)
}

// Start returns the state before any text. A grammar so ambiguous that
// even its start passes the bounds gives the zero State, which allows no
// token; StartErr says why.
func (c *Constraint) Start() State {
	s, _ := c.StartErr()
	return s
}

// StartErr is Start, with the *AmbiguityError that a grammar too
// ambiguous to start gives.
func (c *Constraint) StartErr() (State, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.w.reset()
	d := c.c.start()
	if err := c.end(0); err != nil {
		return State{}, err
	}
	return State{d: d}, nil
}

// end finishes a call that started n bytes into the text: if it passed
// a bound, it returns the error, and empties the cache, which may hold
// the half-done work (a state's parts, a transition not yet known).
func (c *Constraint) end(n int) error {
	if c.w.err == nil {
		return nil
	}
	err := *c.w.err
	err.Text += n
	c.c = newCache(c.g, &c.w)
	return &err
}

// live returns s's state in the current cache, carrying it over when the
// cache has been emptied since. Callers hold c.mu.
func (c *Constraint) live(s State) *dstate {
	if s.d.c == c.c {
		return s.d
	}
	return c.c.adopt(s.d.stackList())
}

// room empties the cache when it is over its bounds, keeping d.
func (c *Constraint) room(d *dstate) *dstate {
	if c.c.size() < maxStates && c.c.words < maxMaskWords {
		return d
	}
	stacks := d.stackList()
	c.c = newCache(c.g, &c.w)
	return c.c.adopt(stacks)
}

// AdvanceBytes returns the state after the text b, and false if b leads
// out of the language, or if the language is too ambiguous to follow it
// (see Read).
func (c *Constraint) AdvanceBytes(s State, b []byte) (State, bool) {
	next, ok, err := c.Read(s, b)
	return next, ok && err == nil
}

// Read returns the state after the text b, and false if b leads out of
// the language. The error is an *AmbiguityError when following b would
// pass the bounds on a call's work.
func (c *Constraint) Read(s State, b []byte) (State, bool, error) {
	if s.d == nil {
		return State{}, false, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.w.reset()
	next, ok := c.read(s, b)
	return next, ok, c.end(s.n)
}

// read is Read within a call: callers hold c.mu and have reset c.w.
func (c *Constraint) read(s State, b []byte) (State, bool) {
	d := c.room(c.live(s))
	for i, x := range b {
		c.w.ahead = i + 1
		if d = c.c.step(d, x); d == nil {
			return State{}, false
		}
	}
	return State{d, s.n + len(b)}, true
}

// Advance returns the state after token id. It refuses a token that is not
// allowed: one whose text leads out of the language, an end token before
// the text is complete, or a token with no text.
func (c *Constraint) Advance(s State, id int) (State, error) {
	if s.d == nil {
		return State{}, fmt.Errorf("token %d: the constraint's state is not valid (zero State)", id)
	}
	if id < 0 || id >= c.v.Size() {
		return State{}, fmt.Errorf("token %d is outside the vocabulary (0..%d)", id, c.v.Size()-1)
	}
	if c.v.end[id] {
		if !s.Complete() {
			return State{}, fmt.Errorf("end token %d before the text is complete (%d more bytes at least)", id, s.Remaining())
		}
		return s, nil
	}
	t := c.v.texts[id]
	if len(t) == 0 {
		return State{}, fmt.Errorf("token %d has no text and is never allowed", id)
	}
	next, ok, err := c.Read(s, t)
	if err != nil {
		return State{}, fmt.Errorf("token %d (%q): %w", id, t, err)
	}
	if !ok {
		return State{}, fmt.Errorf("token %d (%q) leads out of the language", id, t)
	}
	return next, nil
}

// Allowed returns the tokens that may come next in state s. budget is how
// many tokens may still be generated, this one included, or 0 for no
// limit: with a budget, a token is allowed only if the text can still be
// completed in the tokens left after it (counting one token per byte), so
// that a generation cut at its budget ends with a whole sentence; if the
// budget is already too short for that, only tokens that bring the end
// closer are allowed.
//
// The mask is shared and must not be modified. An empty mask means no
// token can continue the text: the constraint cannot be satisfied with
// this vocabulary. A language too ambiguous to decide the mask within
// the bounds on a call's work also gives the empty mask, so that nothing
// outside the language is ever allowed; Tokens says why.
func (c *Constraint) Allowed(s State, budget int) *Mask {
	m, err := c.Tokens(s, budget)
	if err != nil {
		return newMask(c.v.Size())
	}
	return m
}

// Tokens is Allowed, with the *AmbiguityError of a language too
// ambiguous to decide the mask within the bounds on a call's work. A mask
// it returns is exact: every token it allows, and only those, keeps the
// text in the language (within the budget).
func (c *Constraint) Tokens(s State, budget int) (*Mask, error) {
	if s.d == nil {
		return newMask(c.v.Size()), nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.w.reset()
	d := c.room(c.live(s))
	if d.mask == nil {
		c.prepare(d)
		m := c.mask(d, math.MaxInt32)
		if err := c.end(s.n); err != nil {
			return nil, err
		}
		d.mask = m
	}
	if budget <= 0 {
		return d.mask, nil
	}
	limit := int32(max(min(budget-1, math.MaxInt32), int(d.dist)-1))
	if limit >= d.maxDist {
		return d.mask, nil
	}
	if !d.hasLimit || d.limit != limit {
		m := c.mask(d, limit)
		if err := c.end(s.n); err != nil {
			return nil, err
		}
		d.limMask, d.limit, d.hasLimit = m, limit, true
	}
	return d.limMask, nil
}

// AllowedBy is Allowed for tokens whose texts differ from the
// vocabulary's at this one step (text gives each token's text; nil for a
// token that is never allowed), such as the first token after the start
// of a SentencePiece text, which loses its leading space. It tries every
// token's text in turn, without the trie or any memory of the result.
// Like Allowed, it gives the empty mask if the language is too ambiguous
// to decide it; TokensBy says why.
func (c *Constraint) AllowedBy(s State, budget int, text func(id int) []byte) *Mask {
	m, err := c.TokensBy(s, budget, text)
	if err != nil {
		return newMask(c.v.Size())
	}
	return m
}

// TokensBy is AllowedBy, with the *AmbiguityError of a language too
// ambiguous to decide the mask within the bounds on a call's work. text
// is called with the constraint locked, and must not use it.
func (c *Constraint) TokensBy(s State, budget int, text func(id int) []byte) (*Mask, error) {
	m := newMask(c.v.Size())
	if s.d == nil {
		return m, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.w.reset()
	limit := int32(math.MaxInt32)
	if budget > 0 {
		limit = int32(max(min(budget-1, math.MaxInt32), int(s.d.dist)-1))
	}
	for id := range c.v.Size() {
		if c.v.end[id] {
			if s.Complete() {
				m.set(int32(id))
			}
			continue
		}
		t := text(id)
		if len(t) == 0 {
			continue
		}
		next, ok := c.read(s, t)
		if err := c.end(s.n); err != nil {
			return nil, err
		}
		if ok && next.d.dist <= limit {
			m.set(int32(id))
		}
	}
	return m, nil
}
