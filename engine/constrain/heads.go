package constrain

import (
	"encoding/binary"
	"math"
	"slices"
)

// Which tokens a state allows is decided stack by stack, and for most
// tokens by the top few frames of a stack alone: inside a JSON string,
// whether "hello" may come next depends on the string, not on the object
// or array around it, nor on how many characters the string already has.
// So a stack is cut into its head — the frames from the top down to the
// first one that cannot be left without reading a byte of its own — and
// the rest. The vocabulary's trie is walked once per head, with the rest
// replaced by the hole (frame 1), and the walk sorts every token into one
// of two kinds:
//
//   - decided by the head: the token's bytes are read without leaving the
//     head, or leave it with the last byte. Its verdict holds under any
//     rest, and the distance it leads to is the head's part (recorded)
//     plus the rest's (the frame below the head's dist), because a frame's
//     dist is the sum of its own suffix and the dist below it.
//   - unsure: the head may be left before the token's last byte, and what
//     follows depends on the rest. These are few (a string's closing quote
//     followed by more bytes) and are checked byte by byte in the real
//     state.
//
// The walks are kept per head, so states that differ only below their
// heads — the same string at another depth of nesting — share one.

// maxHeadStacks is the most stacks a state may have for its mask to be
// assembled from heads. A state with more comes from a grammar so
// ambiguous that its stacks' heads are many and rarely met again, and
// walking the state whole costs less than walking each head.
const maxHeadStacks = 64

// maxHead bounds the frames of a head.
const maxHead = 8

// A bounded repetition x{0,k} is written as a chain of rules, one per
// count (Ok ::= x Ok-1 | ""), so a string with a maxLength has a new
// position after every character, and its states would each need a walk.
// A head takes the twin of such a position instead, the same place in x*
// (Grammar.twins): for a token of at most k bytes, which cannot read x
// more than k times, x* and x{0,k} agree, in verdict and in distance (x
// cannot be empty, and the chain's rules and x* can be). The few tokens of
// the walk longer than the smallest such k of the head are checked byte
// by byte instead. A position is replaced only while few tokens are that
// long (fewer than len/maxLongShare); the last counts of a repetition get
// walks of their own.
const maxLongShare = 256

// headWalk is what the walk of the vocabulary from one head found.
type headWalk struct {
	start   *dstate     // the head over the hole, in the heads' automaton
	acc     *Mask       // the tokens decided by the head to be allowed
	minDist int32       // the smallest distance (in the head) they lead to
	maxDist int32       // the largest
	unsure  []int32     // trie nodes whose subtrees' tokens may leave the head early
	byDist  []distToken // the allowed tokens by distance; only once a budget needs it
}

// part is one stack's share of a state's mask: its head's walk and the
// distance below the head.
type part struct {
	hw    *headWalk
	acc   *Mask // hw.acc, less the tokens too long for the head's bound
	below int32
}

// head returns the key of stack s's head, the dist of the frames below it
// (0 if the head is the whole stack), and the bound on the length of the
// tokens its walk decides (math.MaxInt32: none), and appends the head's
// positions, top first, to pos.
func (c *cache) head(v *Vocabulary, s int32, pos []int32) (key string, below, bound int32, _ []int32) {
	g := c.g
	bound = math.MaxInt32
	add := func(p int32) {
		if g.twins != nil && g.twins[p].pos != 0 {
			if t := g.twins[p]; len(v.longer(min(t.bound, bound)))*maxLongShare < len(v.byLen) {
				p, bound = t.pos, min(t.bound, bound)
			}
		}
		pos = append(pos, p)
	}
	f := c.frames[s]
	add(f.pos)
	// The top frame can be left once its byte is read if the rest of its
	// alternative can be empty; a lower frame, if all of it can be.
	open := g.suffixMin[f.pos+1] == 0
	next := f.next
	for next != 0 && open && len(pos) < maxHead {
		f = c.frames[next]
		add(f.pos)
		open = g.suffixMin[f.pos] == 0
		next = f.next
	}
	key2 := make([]byte, 4*len(pos)+1)
	for i, p := range pos {
		binary.LittleEndian.PutUint32(key2[4*i:], uint32(p))
	}
	if next == 0 {
		key2[len(key2)-1] = 1 // the head is the whole stack: no hole under it
	}
	return string(key2), c.frames[next].dist, bound, pos
}

// headWalk returns the walk of the vocabulary from the head with the
// given key and positions.
func (c *cache) headWalk(v *Vocabulary, key string, pos []int32) *headWalk {
	if hw, ok := c.heads[key]; ok {
		return hw
	}
	if c.hc == nil {
		c.hc = newCache(c.g, c.w)
	}
	hc := c.hc
	hc.begin()
	id := int32(holeFrame)
	if key[len(key)-1] == 1 {
		id = 0
	}
	for i := len(pos) - 1; i >= 0; i-- {
		id = hc.frame(pos[i], id)
	}
	hc.out = append(hc.out, id)
	hw := hc.walk(v, hc.intern(), nil)
	if c.w.err != nil {
		return nil
	}
	c.heads[key] = hw
	c.words += len(hw.acc.bits) + len(hw.unsure)
	return hw
}

// walk walks the vocabulary's trie from start, a state of a head over the
// hole, abandoning a subtree as soon as its prefix leaves the language. If
// dists is not nil, it also lists the allowed tokens with the distances
// they lead to. If the call's work runs out, the walk stops, and what it
// found is not to be used.
func (c *cache) walk(v *Vocabulary, start *dstate, dists *[]distToken) *headWalk {
	hw := &headWalk{start: start, acc: newMask(v.Size()), minDist: math.MaxInt32}
	at := make([]*dstate, v.maxDepth+1)
	at[0] = start
	for i := 0; i < len(v.nodeByte) && c.w.err == nil; {
		depth := v.nodeDepth[i]
		from := at[depth-1]
		if from.hole {
			// The head may have been read: what the rest of the bytes do
			// depends on the stack below it.
			hw.unsure = append(hw.unsure, int32(i))
			i = int(v.nodeSkip[i])
			continue
		}
		var next *dstate
		if t := from.trans[v.nodeByte[i]]; t > 0 {
			next = c.states[t-1]
		} else if t == 0 {
			c.w.ahead = int(depth)
			next = c.step(from, v.nodeByte[i])
		}
		if next == nil {
			i = int(v.nodeSkip[i])
			continue
		}
		at[depth] = next
		if lo, hi := v.nodeToks[i], v.nodeToks[i+1]; lo < hi {
			for _, id := range v.toks[lo:hi] {
				hw.acc.set(id)
			}
			if dists != nil {
				for _, id := range v.toks[lo:hi] {
					*dists = append(*dists, distToken{id, next.dist})
				}
			}
			hw.minDist = min(hw.minDist, next.dist)
			hw.maxDist = max(hw.maxDist, next.dist)
		}
		i++
	}
	return hw
}

// distances returns hw's allowed tokens sorted by the distance they lead
// to, walking the head again the first time: only budgets near their end
// need it.
func (c *cache) distances(v *Vocabulary, hw *headWalk) []distToken {
	if hw.byDist != nil || hw.minDist > hw.maxDist {
		return hw.byDist
	}
	var ds []distToken
	if hw.start.c.walk(v, hw.start, &ds); c.w.err != nil {
		return nil
	}
	// A counting sort: distances span few values.
	if span := int64(hw.maxDist) - int64(hw.minDist); span < 1<<16 {
		at := make([]int, span+2)
		for _, t := range ds {
			at[t.dist-hw.minDist+1]++
		}
		for i := 1; i < len(at); i++ {
			at[i] += at[i-1]
		}
		out := make([]distToken, len(ds))
		for _, t := range ds {
			out[at[t.dist-hw.minDist]] = t
			at[t.dist-hw.minDist]++
		}
		ds = out
	} else {
		slices.SortStableFunc(ds, func(a, b distToken) int { return int(a.dist) - int(b.dist) })
	}
	hw.byDist = ds
	c.words += len(ds)
	return ds
}

// prepare finds, once per state, the parts of d's masks: the walk of each
// stack's head, and the unsure tokens checked byte by byte from d. If the
// call's work runs out, d's parts are not to be used.
func (c *Constraint) prepare(d *dstate) {
	cc := c.c
	if len(d.stacks) > maxHeadStacks {
		// Walk the state itself, as one head that is the whole state.
		hw := c.c.walk(c.v, d, nil)
		if cc.w.err != nil {
			return
		}
		c.c.words += len(hw.acc.bits)
		d.parts, d.maxDist = []part{{hw, hw.acc, 0}}, hw.maxDist
		return
	}
	var pos []int32
	var tried *Mask // the tokens checked so far
	seen := map[*headWalk]int32{}
	for _, s := range d.stacks {
		if s == 0 {
			continue
		}
		if cc.w.err != nil {
			return
		}
		key, below, bound, p := cc.head(c.v, s, pos[:0])
		pos = p
		hw := cc.headWalk(c.v, key, pos)
		if hw == nil {
			return
		}
		if bound != math.MaxInt32 {
			// The tokens too long for the bound are checked as unsure ones.
			acc := &Mask{bits: slices.Clone(hw.acc.bits), n: hw.acc.n}
			for _, id := range c.v.longer(bound) {
				if acc.Allowed(int(id)) {
					acc.bits[id>>6] &^= 1 << (id & 63)
					c.check(d, id, &tried)
				}
			}
			cc.words += len(acc.bits)
			d.parts = append(d.parts, part{hw, acc, below})
			d.maxDist = max(d.maxDist, satAdd(hw.maxDist, below))
			continue
		}
		// Two stacks with one head: the one with less below reaches every
		// end sooner, and allows all the other does.
		if b, ok := seen[hw]; ok && b <= below {
			continue
		}
		seen[hw] = below
		d.maxDist = max(d.maxDist, satAdd(hw.maxDist, below))
	}
	for hw, below := range seen {
		d.parts = append(d.parts, part{hw, hw.acc, below})
	}
	var at []*dstate
	for _, p := range d.parts {
		for _, i := range p.hw.unsure {
			if at = c.checkSubtree(d, i, at); cc.w.err != nil {
				return
			}
		}
	}
	c.c.words += len(d.checked)
}

// check runs token id's text from d, once, and adds it to d.checked if
// it is allowed.
func (c *Constraint) check(d *dstate, id int32, tried **Mask) {
	if *tried == nil {
		*tried = newMask(c.v.Size())
	}
	if (*tried).Allowed(int(id)) {
		return
	}
	(*tried).set(id)
	if e := c.c.run(d, c.v.texts[id]); e != nil {
		d.checked = append(d.checked, distToken{id, e.dist})
		d.maxDist = max(d.maxDist, e.dist)
	}
}

// checkSubtree walks the trie's subtree under node i from d, adding its
// allowed tokens to d.checked: the tokens share their prefixes' steps.
func (c *Constraint) checkSubtree(d *dstate, i int32, at []*dstate) []*dstate {
	v := c.v
	if at == nil {
		at = make([]*dstate, v.maxDepth+1)
	}
	depth := v.nodeDepth[i]
	// Every subtree holds a token; its text leads to node i.
	prefix := v.texts[v.toks[v.nodeToks[i]]][:depth-1]
	e := c.c.run(d, prefix)
	if e == nil {
		return at
	}
	at[depth-1] = e
	for j := i; j < v.nodeSkip[i] && c.c.w.err == nil; {
		dj := v.nodeDepth[j]
		c.c.w.ahead = int(dj)
		next := c.c.step(at[dj-1], v.nodeByte[j])
		if next == nil {
			j = v.nodeSkip[j]
			continue
		}
		at[dj] = next
		for _, id := range v.toks[v.nodeToks[j]:v.nodeToks[j+1]] {
			d.checked = append(d.checked, distToken{id, next.dist})
			d.maxDist = max(d.maxDist, next.dist)
		}
		j++
	}
	return at
}

// run returns the state after the bytes b from d, or nil.
func (c *cache) run(d *dstate, b []byte) *dstate {
	for i, x := range b {
		c.w.ahead = i + 1
		if d = c.step(d, x); d == nil {
			return nil
		}
	}
	return d
}

// mask assembles the tokens allowed in d whose next state is at most
// limit bytes from the end; nil if the call's work runs out.
func (c *Constraint) mask(d *dstate, limit int32) *Mask {
	if !d.accept && len(d.checked) == 0 && len(d.parts) == 1 && d.parts[0].below+d.parts[0].hw.maxDist <= limit {
		// The head's own mask, shared.
		return d.parts[0].acc
	}
	m := newMask(c.v.Size())
	c.c.words += len(m.bits)
	if d.accept {
		for _, id := range c.v.endIDs {
			m.set(id)
		}
	}
	var tmp *Mask
	for _, p := range d.parts {
		hw := p.hw
		l := limit - p.below
		switch {
		case l >= hw.maxDist:
			m.or(p.acc)
		case l < 0:
		default:
			byDist := c.c.distances(c.v, hw)
			if c.c.w.err != nil {
				return nil
			}
			k, _ := slices.BinarySearchFunc(byDist, l+1, func(t distToken, x int32) int { return int(t.dist) - int(x) })
			if k <= len(byDist)/2 {
				for _, t := range byDist[:k] {
					if p.acc.Allowed(int(t.id)) {
						m.set(t.id)
					}
				}
				continue
			}
			if tmp == nil {
				tmp = newMask(c.v.Size())
			}
			copy(tmp.bits, p.acc.bits)
			for _, t := range byDist[k:] {
				tmp.bits[t.id>>6] &^= 1 << (t.id & 63)
			}
			m.or(tmp)
		}
	}
	for _, t := range d.checked {
		if t.dist <= limit {
			m.set(t.id)
		}
	}
	return m
}

func satAdd(a, b int32) int32 { return int32(min(int64(a)+int64(b), math.MaxInt32)) }
