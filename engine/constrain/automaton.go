package constrain

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
)

// The automaton's state is a set of stacks. A stack is a chain of frames,
// each the position in Grammar.elems still to be read in some rule; the
// top frame always points at a byte class. The empty stack (frame 0)
// means the whole sentence has been read.
//
// Frame 1 is the hole: the unknown rest of a stack under a head (see
// heads.go). A stack that pops into it has read all of its head, and
// what may follow depends on the frames below; the automaton keeps it as
// a stack of its own, with nothing on top, 0 bytes from its end.
//
// Frames and states are hash-consed in a cache: the same stack is the same
// frame number, the same set of stacks the same *dstate, so a state
// reached again finds its transitions and masks already computed.

// Bounds of the cache. When it holds more states or masks, it is emptied
// and refilled from the states in use.
const (
	maxStates    = 1 << 14
	maxMaskWords = 4 << 20 // bytes of all remembered masks / 8
)

// Bounds on the work of one call. An ambiguous grammar — a repetition of
// alternatives that read the same bytes, a recursion that may close or go
// on — is read along every way at once, and the ways can multiply with
// each byte. Rather than drop some (which would make the masks disagree
// with the language) or follow them all for minutes, a Constraint gives up
// with an AmbiguityError once a call would pass either bound. Both are far
// above what the languages it is made for need — JSON, JSON Schemas,
// regular expressions and grammars written to be parsed — and low enough
// that the work of a call stays in the order of a second.
const (
	// MaxStacks is the most parse stacks one state may hold: the ways of
	// reading the text so far that are still open. A state's stacks are
	// all kept, so this bounds its memory and the cost of each step from
	// it.
	MaxStacks = 1 << 12
	// MaxWork is the most parse steps (stacks made or carried over to a
	// new state) that one call of Start, Advance, AdvanceBytes or Allowed
	// may take. Finding a state's mask reads the vocabulary's texts from
	// it, so this is what bounds the time to decide one token when each
	// state holds many stacks.
	MaxWork = 1 << 22
)

// meter counts a call's work against MaxWork and MaxStacks, and holds
// the error once either is passed. The caches of a Constraint share one.
type meter struct {
	left  int
	ahead int // bytes read past the state the call started from, for errors
	err   *AmbiguityError
}

// reset starts a call.
func (m *meter) reset() { m.left, m.ahead, m.err = MaxWork, 0, nil }

const holeFrame = 1

type frame struct {
	pos  int32 // element still to read
	next int32 // the frame below (0: none)
	dist int32 // fewest bytes to empty this stack
}

// dstate is one state of the automaton.
type dstate struct {
	c      *cache
	id     int32
	stacks []int32 // sorted frame numbers
	accept bool    // the empty stack is one of them: the text is complete
	hole   bool    // the hole is one of them: the head has been read
	dist   int32   // fewest bytes to a complete text
	trans  []int32 // per byte: 0 not known yet, -1 no way on, k the state k-1

	parts    []part      // per stack, its head's walk and the distance below the head
	checked  []distToken // the tokens checked byte by byte, allowed with no budget
	mask     *Mask       // the tokens allowed with no budget
	maxDist  int32       // the largest dist of a state a token leads to
	limMask  *Mask       // the tokens allowed when the budget says limit
	limit    int32
	hasLimit bool
}

type cache struct {
	g       *Grammar
	frames  []frame
	frameID map[[2]int32]int32
	states  []*dstate
	stateID map[string]int32
	words   int // mask words held

	heads map[string]*headWalk // walks of the vocabulary per head of a stack
	hc    *cache               // the automaton the heads are walked in
	w     *meter

	// scratch for step
	seen   map[[2]int32]bool
	out    []int32
	ends   [2]bool // out holds the empty stack, the hole
	u      []int32
	afters [][]int32 // per frame, see after
}

func newCache(g *Grammar, w *meter) *cache {
	return &cache{
		g:       g,
		w:       w,
		frames:  []frame{{pos: -1}, {pos: -1}},
		frameID: map[[2]int32]int32{},
		stateID: map[string]int32{},
		seen:    map[[2]int32]bool{},
		heads:   map[string]*headWalk{},
	}
}

func (c *cache) frame(pos, next int32) int32 {
	k := [2]int32{pos, next}
	if id, ok := c.frameID[k]; ok {
		return id
	}
	id := int32(len(c.frames))
	d := int(c.g.suffixMin[pos]) + int(c.frames[next].dist)
	c.frames = append(c.frames, frame{pos: pos, next: next, dist: sat(d)})
	c.frameID[k] = id
	return id
}

// expand adds to c.out the stacks that reading from position pos, with
// next below, comes to: each topped by a byte class, or empty.
func (c *cache) expand(pos, next int32) {
	k := [2]int32{pos, next}
	if c.seen[k] || c.w.err != nil {
		return
	}
	c.seen[k] = true
	if c.w.left--; c.w.left < 0 {
		c.fail(pos, false)
		return
	}
	e := c.g.elems[pos]
	switch e.kind {
	case eEnd:
		if next == 0 || next == holeFrame {
			if !c.ends[next] {
				c.ends[next] = true
				c.out = append(c.out, next)
			}
			return
		}
		f := c.frames[next]
		c.expand(f.pos, f.next)
	case eClass:
		// Every (pos, next) is seen once, so the stacks in c.out are
		// distinct, and their number is the state's.
		if len(c.out) >= MaxStacks {
			c.fail(pos, true)
			return
		}
		c.out = append(c.out, c.frame(pos, next))
	case eRef:
		cont := next
		if c.g.elems[pos+1].kind != eEnd { // a call in tail position needs no frame to return to
			cont = c.frame(pos+1, next)
		}
		for _, a := range c.g.rules[e.arg] {
			c.expand(a, cont)
		}
	}
}

// start is the state before any byte, or nil if the call's work ran out.
func (c *cache) start() *dstate {
	c.begin()
	for _, a := range c.g.rules[c.g.root] {
		c.expand(a, 0)
	}
	if c.w.err != nil {
		return nil
	}
	return c.intern()
}

func (c *cache) begin() {
	clear(c.seen)
	c.out = c.out[:0]
	c.ends = [2]bool{}
}

// fail records that the call passed MaxStacks (stacks) or MaxWork while
// reading at element pos, unless it already has.
func (c *cache) fail(pos int32, stacks bool) {
	if c.w.err != nil {
		return
	}
	g := c.g
	r := g.ruleOf[pos]
	e := syntaxError(g.source, g.text, int(g.rulePos[r]), "")
	c.w.err = &AmbiguityError{Source: g.source, Rule: g.owners[r], Offset: e.Offset, Line: e.Line, Column: e.Column, Text: c.w.ahead, Stacks: stacks}
}

// failAt is fail for the stacks u, at the rule whose byte classes top
// the most of them: where the ways of reading multiply.
func (c *cache) failAt(u []int32, stacks bool) {
	count := map[int32]int{}
	best, pos := 0, int32(-1)
	for _, s := range u {
		if s == 0 || s == holeFrame {
			continue
		}
		p := c.frames[s].pos
		r := c.g.ruleOf[p]
		if count[r]++; count[r] > best {
			best, pos = count[r], p
		}
	}
	if pos < 0 {
		pos = c.g.rules[c.g.root][0]
	}
	c.fail(pos, stacks)
}

// intern returns the state for the stacks in c.out.
func (c *cache) intern() *dstate {
	slices.Sort(c.out)
	stacks := slices.Compact(c.out)
	key := make([]byte, 4*len(stacks))
	for i, s := range stacks {
		binary.LittleEndian.PutUint32(key[4*i:], uint32(s))
	}
	if id, ok := c.stateID[string(key)]; ok {
		return c.states[id]
	}
	d := &dstate{c: c, id: int32(len(c.states)), stacks: slices.Clone(stacks), dist: math.MaxInt32, trans: make([]int32, 256)}
	for _, s := range d.stacks {
		switch s {
		case 0:
			d.accept = true
		case holeFrame:
			d.hole = true
		}
		d.dist = min(d.dist, c.frames[s].dist)
	}
	c.states = append(c.states, d)
	c.stateID[string(key)] = d.id
	return d
}

// step returns the state after byte b, or nil if b cannot come next.
//
// The stacks a frame leads to once its byte is read are the same in every
// state that holds it, so they are expanded once per frame (after); the
// state after b is the union over the stacks whose class holds b. Bytes
// that the same stacks accept lead to the same state, so the first step
// from a state finds its transitions on every byte at once, one union per
// set of accepting stacks.
//
// When the call's work runs out, step returns nil and leaves the
// transition unknown; the caller finds the error in c.w.
func (c *cache) step(d *dstate, b byte) *dstate {
	t := d.trans[b]
	if t == 0 {
		c.fill(d, b)
		t = d.trans[b]
	}
	if t <= 0 {
		return nil
	}
	return c.states[t-1]
}

// fill finds d's transitions: on every byte if d has at most 64 stacks,
// else on b.
func (c *cache) fill(d *dstate, b byte) {
	if len(d.stacks) > 64 {
		d.trans[b] = c.union(d, func(_ int, s int32) bool { return c.class(s).has(b) })
		return
	}
	if c.w.err != nil {
		return
	}
	var sigs [256]uint64 // per byte, which stacks accept it
	for i, s := range d.stacks {
		if s == 0 || s == holeFrame {
			continue
		}
		set := c.class(s)
		for w, word := range set {
			for word != 0 {
				sigs[w*64+bits.TrailingZeros64(word)] |= 1 << i
				word &= word - 1
			}
		}
	}
	for x := range 256 {
		if d.trans[x] != 0 {
			continue
		}
		sig := sigs[x]
		t := int32(-1)
		if sig != 0 {
			if t = c.union(d, func(i int, _ int32) bool { return sig&(1<<i) != 0 }); t == 0 {
				return
			}
		}
		for y := x; y < 256; y++ {
			if sigs[y] == sig {
				d.trans[y] = t
			}
		}
	}
}

// class is the byte class on top of stack s.
func (c *cache) class(s int32) *byteSet { return &c.g.sets[c.g.elems[c.frames[s].pos].arg] }

// union interns the state made of what d's stacks chosen by pick (given
// each stack's index and frame) lead to, and returns its transition entry
// (-1: none; 0: the call's work ran out).
func (c *cache) union(d *dstate, pick func(i int, s int32) bool) int32 {
	u := c.u[:0]
	for i, s := range d.stacks {
		if s == 0 || s == holeFrame || !pick(i, s) {
			continue
		}
		a := c.after(s)
		if c.w.err != nil {
			return 0
		}
		if c.w.left -= len(a); c.w.left < 0 {
			c.failAt(d.stacks, false)
			return 0
		}
		u = append(u, a...)
		if len(u) > 2*MaxStacks {
			// Stacks reached along several ways count once.
			slices.Sort(u)
			u = slices.Compact(u)
			if len(u) > MaxStacks {
				c.u = u
				c.failAt(u, true)
				return 0
			}
		}
	}
	c.u = u
	if len(u) == 0 {
		return -1
	}
	c.out = append(c.out[:0], u...)
	slices.Sort(c.out)
	if c.out = slices.Compact(c.out); len(c.out) > MaxStacks {
		c.failAt(c.out, true)
		return 0
	}
	return c.intern().id + 1
}

// after returns the stacks that frame s, topped by a byte class, leads to
// once a byte of the class is read.
func (c *cache) after(s int32) []int32 {
	if int(s) < len(c.afters) && c.afters[s] != nil {
		return c.afters[s]
	}
	c.begin()
	f := c.frames[s]
	c.expand(f.pos+1, f.next)
	if c.w.err != nil {
		return nil
	}
	out := append([]int32{}, c.out...) // not nil, even when empty
	for len(c.afters) <= int(s) {
		c.afters = append(c.afters, nil)
	}
	c.afters[s] = out
	return out
}

// size is the number of states held, the heads' automaton's included.
func (c *cache) size() int {
	n := len(c.states)
	if c.hc != nil {
		n += len(c.hc.states)
	}
	return n
}

// distToken is a token and how far from the end of the text it leads.
type distToken struct{ id, dist int32 }

// final reports whether d is complete and no byte may follow.
func (d *dstate) final() bool { return len(d.stacks) == 1 && d.stacks[0] == 0 }

// stackList returns d's stacks as chains of positions, to carry a state
// over into a new cache.
func (d *dstate) stackList() [][]int32 {
	out := make([][]int32, len(d.stacks))
	for i, s := range d.stacks {
		for ; s != 0; s = d.c.frames[s].next {
			out[i] = append(out[i], d.c.frames[s].pos)
		}
	}
	return out
}

// adopt returns the state of a new cache with the given stacks.
func (c *cache) adopt(stacks [][]int32) *dstate {
	c.begin()
	for _, st := range stacks {
		id := int32(0)
		for i := len(st) - 1; i >= 0; i-- {
			id = c.frame(st[i], id)
		}
		c.out = append(c.out, id)
	}
	return c.intern()
}
