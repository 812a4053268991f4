package constrain

import (
	"encoding/binary"
	"math"
	"slices"
)

// The automaton's state is a set of stacks. A stack is a chain of frames,
// each the position in Grammar.elems still to be read in some rule; the
// top frame always points at a byte class. The empty stack (frame 0)
// means the whole sentence has been read.
//
// Frames and states are hash-consed in a cache: the same stack is the same
// frame number, the same set of stacks the same *dstate, so a state
// reached again finds its transitions and masks already computed.

// Bounds of the cache. When it holds more states or masks, it is emptied
// and refilled from the states in use.
const (
	maxStates      = 1 << 14
	maxMaskWords   = 4 << 20 // bytes of all remembered masks / 8
	maxStackFanout = 1 << 12 // stacks in one state: beyond, the rest are dropped
)

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
	dist   int32   // fewest bytes to a complete text
	trans  []int32 // per byte: 0 not known yet, -1 no way on, k the state k-1

	mask     *Mask       // the tokens allowed with no budget
	maxDist  int32       // the largest dist of a state a token leads to
	far      []distToken // the allowed tokens that lead farther from the end than dist
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

	// scratch for step
	seen map[[2]int32]bool
	out  []int32
}

func newCache(g *Grammar) *cache {
	return &cache{
		g:       g,
		frames:  []frame{{pos: -1}},
		frameID: map[[2]int32]int32{},
		stateID: map[string]int32{},
		seen:    map[[2]int32]bool{},
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
	if c.seen[k] || len(c.out) >= maxStackFanout {
		return
	}
	c.seen[k] = true
	e := c.g.elems[pos]
	switch e.kind {
	case eEnd:
		if next == 0 {
			c.out = append(c.out, 0)
			return
		}
		f := c.frames[next]
		c.expand(f.pos, f.next)
	case eClass:
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

// start is the state before any byte.
func (c *cache) start() *dstate {
	c.begin()
	for _, a := range c.g.rules[c.g.root] {
		c.expand(a, 0)
	}
	return c.intern()
}

func (c *cache) begin() {
	clear(c.seen)
	c.out = c.out[:0]
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
		if s == 0 {
			d.accept = true
		}
		d.dist = min(d.dist, c.frames[s].dist)
	}
	c.states = append(c.states, d)
	c.stateID[string(key)] = d.id
	return d
}

// step returns the state after byte b, or nil if b cannot come next.
func (c *cache) step(d *dstate, b byte) *dstate {
	if t := d.trans[b]; t != 0 {
		if t < 0 {
			return nil
		}
		return c.states[t-1]
	}
	c.begin()
	for _, s := range d.stacks {
		if s == 0 {
			continue
		}
		f := c.frames[s]
		if c.g.sets[c.g.elems[f.pos].arg].has(b) {
			c.expand(f.pos+1, f.next)
		}
	}
	if len(c.out) == 0 {
		d.trans[b] = -1
		return nil
	}
	next := c.intern()
	d.trans[b] = next.id + 1
	return next
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
