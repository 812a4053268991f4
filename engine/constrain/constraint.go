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
type Constraint struct {
	g  *Grammar
	v  *Vocabulary
	mu sync.Mutex
	c  *cache
}

// New binds g to the vocabulary v.
func New(g *Grammar, v *Vocabulary) *Constraint {
	return &Constraint{g: g, v: v, c: newCache(g)}
}

// Vocabulary is the vocabulary the constraint was made for.
func (c *Constraint) Vocabulary() *Vocabulary { return c.v }

// Grammar is the constraint's language.
func (c *Constraint) Grammar() *Grammar { return c.g }

// State is where a generation stands in the language: what the text read
// so far allows next. It is a small value; the zero State is not valid.
type State struct {
	d *dstate
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

// Start returns the state before any text.
func (c *Constraint) Start() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return State{c.c.start()}
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
	c.c = newCache(c.g)
	return c.c.adopt(stacks)
}

// AdvanceBytes returns the state after the text b, and false if b leads
// out of the language.
func (c *Constraint) AdvanceBytes(s State, b []byte) (State, bool) {
	if s.d == nil {
		return State{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.room(c.live(s))
	for _, x := range b {
		if d = c.c.step(d, x); d == nil {
			return State{}, false
		}
	}
	return State{d}, true
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
	next, ok := c.AdvanceBytes(s, t)
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
// this vocabulary.
func (c *Constraint) Allowed(s State, budget int) *Mask {
	if s.d == nil {
		return newMask(c.v.Size())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.room(c.live(s))
	if d.mask == nil {
		c.prepare(d)
		d.mask = c.mask(d, math.MaxInt32)
	}
	if budget <= 0 {
		return d.mask
	}
	limit := int32(max(min(budget-1, math.MaxInt32), int(d.dist)-1))
	if limit >= d.maxDist {
		return d.mask
	}
	if !d.hasLimit || d.limit != limit {
		d.limMask, d.limit, d.hasLimit = c.mask(d, limit), limit, true
	}
	return d.limMask
}

// AllowedBy is Allowed for tokens whose texts differ from the
// vocabulary's at this one step (text gives each token's text; nil for a
// token that is never allowed), such as the first token after the start
// of a SentencePiece text, which loses its leading space. It tries every
// token's text in turn, without the trie or any memory of the result.
func (c *Constraint) AllowedBy(s State, budget int, text func(id int) []byte) *Mask {
	m := newMask(c.v.Size())
	if s.d == nil {
		return m
	}
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
		if next, ok := c.AdvanceBytes(s, t); ok && next.d.dist <= limit {
			m.set(int32(id))
		}
	}
	return m
}
