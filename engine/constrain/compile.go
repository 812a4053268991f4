package constrain

import (
	"fmt"
	"math"
)

// Limits on what a language may ask for, so that compiling and running it
// takes time and memory in proportion to its text.
const (
	// MaxRepeat is the largest count a repetition such as x{m,n} may
	// name, as in Go's regexp.
	MaxRepeat = 1000
	// MaxElements bounds the size of a compiled grammar: byte classes and
	// rule references in all alternatives.
	MaxElements = 1 << 20
	// MaxDepth bounds how deeply a source's constructs may nest.
	MaxDepth = 1000
)

// Grammar is a compiled language over bytes, ready to be bound to a
// vocabulary (see New). It is immutable and safe for concurrent use.
type Grammar struct {
	elems     []elem
	sets      []byteSet
	rules     [][]int32 // per rule, where each alternative starts in elems
	names     []string  // per rule, its name ("" for rules made by the compiler)
	owners    []string  // per rule, its name or that of the named rule it was written in
	rulePos   []int32   // per rule, the offset in the source of its definition or construct
	ruleOf    []int32   // per element, the rule it belongs to
	source    string    // "grammar", "regular expression" or "JSON schema"
	text      string    // the source text, for errors' lines and columns
	root      int32
	suffixMin []int32 // per element, fewest bytes from it to the end of its alternative
	minLen    int     // fewest bytes of a sentence

	// twins maps a position in a bounded repetition x{0,k} to the same
	// position in x*, with how many more times x may still be read from
	// it (see heads.go); nil if the grammar has no such repetition.
	twins []twin
}

// twin is the position in x* that stands for a position of x{0,k}, and
// the k; pos 0: none.
type twin struct{ pos, bound int32 }

type elemKind uint8

const (
	eEnd   elemKind = iota // the end of an alternative
	eClass                 // one byte of sets[arg]
	eRef                   // rule arg
)

type elem struct {
	kind elemKind
	arg  int32
}

// MinLength is the length in bytes of the shortest text of the language.
func (g *Grammar) MinLength() int { return g.minLen }

// item is an element of an alternative while compiling.
type item struct {
	ref bool
	arg int // a set index, or a rule
}

type lrule struct {
	alts  [][]item
	name  string
	pos   int
	owner int // the rule whose text this one was written in (itself if named)
}

type compiler struct {
	b      *builder
	rules  []lrule
	sets   []byteSet
	setIDs map[byteSet]int
	stars  []star
	chains []chain
	items  int
	ne     map[int]int // rule -> its copy without the empty string
	null   []bool
	cur    int // the rule being lowered: the owner of the rules it makes
}

// star is a rule S ::= x S | "" made for x*.
type star struct{ rule int }

// chain is the rules O1 ::= x | "", Ok ::= x Ok-1 | "" made for up to
// len(rules) more x, rules[k-1] being Ok; twin is the rule x* ::= x x* | ""
// made for it, if any.
type chain struct {
	x     item
	rules []int
	twin  int
}

// compile lowers the builder's rules, starting from root, into a Grammar.
func (b *builder) compile(root int) (*Grammar, error) {
	for _, r := range b.rules {
		if r.body == nil {
			return nil, b.errorf(r.pos, "rule %q is used but never defined", r.name)
		}
	}
	c := &compiler{b: b, setIDs: map[byteSet]int{}, ne: map[int]int{}}
	for i, r := range b.rules {
		c.rules = append(c.rules, lrule{name: r.name, pos: r.pos, owner: i})
	}
	for i, r := range b.rules {
		c.cur = i
		alts, err := c.alternatives(r.body, 0)
		if err != nil {
			return nil, err
		}
		c.rules[i].alts = alts
	}
	if !c.prune(root) {
		return nil, b.errorf(b.rules[root].pos, "no text matches: the language is empty")
	}
	c.nullable()
	for _, s := range c.stars {
		alts := c.rules[s.rule].alts
		if len(alts) != 2 {
			continue // x matches no text: only the empty alternative is left
		}
		x := alts[0][0]
		if x.ref && c.null[x.arg] {
			c.rules[s.rule].alts[0][0] = item{ref: true, arg: c.nonEmpty(x.arg)}
		}
	}
	c.prune(root)
	c.nullable()
	c.twins()
	if err := c.leftRecursion(); err != nil {
		return nil, err
	}
	return c.flatten(root), nil
}

func (c *compiler) newRule(pos int, alts ...[]item) int {
	c.rules = append(c.rules, lrule{alts: alts, pos: pos, owner: c.cur})
	return len(c.rules) - 1
}

func (c *compiler) count(n int, pos int) error {
	c.items += n
	if c.items > MaxElements {
		return c.b.errorf(pos, "the language is too large: more than %d elements once its repetitions are written out", MaxElements)
	}
	return nil
}

// alternatives lowers n as the body of a rule.
func (c *compiler) alternatives(n *node, depth int) ([][]item, error) {
	if n.kind != nAlt {
		seq, err := c.sequence(n, depth)
		return [][]item{seq}, err
	}
	var alts [][]item
	for _, k := range n.kids {
		seq, err := c.sequence(k, depth+1)
		if err != nil {
			return nil, err
		}
		alts = append(alts, seq)
	}
	return alts, nil
}

// sequence lowers n into the items of one alternative.
func (c *compiler) sequence(n *node, depth int) ([]item, error) {
	if depth > MaxDepth {
		return nil, c.b.errorf(n.pos, "constructs nest more than %d deep", MaxDepth)
	}
	switch n.kind {
	case nBytes:
		if err := c.count(1, n.pos); err != nil {
			return nil, err
		}
		id, ok := c.setIDs[n.set]
		if !ok {
			id = len(c.sets)
			c.sets = append(c.sets, n.set)
			c.setIDs[n.set] = id
		}
		return []item{{arg: id}}, nil
	case nRef:
		if err := c.count(1, n.pos); err != nil {
			return nil, err
		}
		return []item{{ref: true, arg: n.rule}}, nil
	case nSeq:
		var out []item
		for _, k := range n.kids {
			s, err := c.sequence(k, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, s...)
		}
		return out, nil
	case nAlt:
		if len(n.kids) == 1 {
			return c.sequence(n.kids[0], depth+1)
		}
		alts, err := c.alternatives(n, depth+1)
		if err != nil {
			return nil, err
		}
		if err := c.count(1, n.pos); err != nil {
			return nil, err
		}
		return []item{{ref: true, arg: c.newRule(n.pos, alts...)}}, nil
	case nRepeat:
		return c.repeat(n, depth)
	}
	return nil, c.b.errorf(n.pos, "internal error: unknown construct %d", n.kind)
}

func (c *compiler) repeat(n *node, depth int) ([]item, error) {
	lo, hi := n.min, n.max
	if lo < 0 || lo > MaxRepeat || hi > MaxRepeat {
		return nil, c.b.errorf(n.pos, "repetition count %d is above the limit of %d", max(lo, hi), MaxRepeat)
	}
	if hi >= 0 && hi < lo {
		return nil, c.b.errorf(n.pos, "repetition {%d,%d} has a maximum below its minimum", lo, hi)
	}
	body, err := c.sequence(n.kids[0], depth+1)
	if err != nil {
		return nil, err
	}
	// x is the repeated thing as one item: itself if it is one, else a rule.
	var x item
	if len(body) == 1 {
		x = body[0]
	} else {
		x = item{ref: true, arg: c.newRule(n.pos, body)}
	}
	extra := hi - lo
	if hi < 0 {
		extra = 2
	}
	if err := c.count(lo+2*extra, n.pos); err != nil {
		return nil, err
	}
	out := make([]item, 0, lo+1)
	for range lo {
		out = append(out, x)
	}
	switch {
	case hi < 0:
		// S ::= x S | ""
		s := c.newRule(n.pos)
		c.rules[s].alts = [][]item{{x, {ref: true, arg: s}}, {}}
		c.stars = append(c.stars, star{s})
		out = append(out, item{ref: true, arg: s})
	case extra > 0:
		// O1 ::= x | "", Ok ::= x Ok-1 | "": up to extra more.
		o := c.newRule(n.pos, []item{x}, []item{})
		ch := chain{x: x, rules: []int{o}, twin: -1}
		for range extra - 1 {
			o = c.newRule(n.pos, []item{x, {ref: true, arg: o}}, []item{})
			ch.rules = append(ch.rules, o)
		}
		if extra >= minTwin {
			c.chains = append(c.chains, ch)
		}
		out = append(out, item{ref: true, arg: o})
	}
	return out, nil
}

// minTwin is the fewest repetitions a chain needs to get a twin: below
// it, the twin would save little.
const minTwin = 4

// twins makes the rule x* for each chain of a bounded repetition of a
// non-empty x, so that the positions of the chain's rules, which differ
// only by how many x are left, can be walked as the one position of x*
// (see heads.go). A chain whose rules lost their x to pruning, or whose
// x can be empty (x* would then be left-recursive, and count what the
// chain does not), gets none.
func (c *compiler) twins() {
	for i := range c.chains {
		ch := &c.chains[i]
		if ch.x.ref && c.null[ch.x.arg] {
			continue
		}
		ok := true
		for k, r := range ch.rules {
			alts := c.rules[r].alts
			if len(alts) != 2 || len(alts[0]) != min(k+1, 2) || alts[0][0] != ch.x || k > 0 && alts[0][1] != (item{ref: true, arg: ch.rules[k-1]}) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		s := c.newRule(c.rules[ch.rules[0]].pos)
		c.rules[s].owner = c.rules[ch.rules[0]].owner
		c.rules[s].alts = [][]item{{ch.x, {ref: true, arg: s}}, {}}
		c.null = append(c.null, true)
		ch.twin = s
	}
}

// prune removes the alternatives that can never be completed (they use a
// rule that matches no text) and reports whether root matches some text.
func (c *compiler) prune(root int) bool {
	ok := make([]bool, len(c.rules))
	for changed := true; changed; {
		changed = false
		for r := range c.rules {
			if ok[r] {
				continue
			}
			for _, a := range c.rules[r].alts {
				if c.complete(a, ok) {
					ok[r], changed = true, true
					break
				}
			}
		}
	}
	for r := range c.rules {
		alts := c.rules[r].alts[:0]
		for _, a := range c.rules[r].alts {
			if c.complete(a, ok) {
				alts = append(alts, a)
			}
		}
		c.rules[r].alts = alts
	}
	return ok[root]
}

func (c *compiler) complete(a []item, ok []bool) bool {
	for _, it := range a {
		if it.ref && !ok[it.arg] || !it.ref && c.sets[it.arg].empty() {
			return false
		}
	}
	return true
}

// nullable finds the rules that match the empty string.
func (c *compiler) nullable() {
	c.null = make([]bool, len(c.rules))
	for changed := true; changed; {
		changed = false
		for r := range c.rules {
			if c.null[r] {
				continue
			}
			for _, a := range c.rules[r].alts {
				if c.allNull(a) {
					c.null[r], changed = true, true
					break
				}
			}
		}
	}
}

func (c *compiler) allNull(a []item) bool {
	for _, it := range a {
		if !it.ref || !c.null[it.arg] {
			return false
		}
	}
	return true
}

// nonEmpty returns a rule for the texts of rule r but the empty one. A
// star of something that can be empty, such as (a*)*, then repeats only
// what reads bytes, and expanding it cannot go round forever.
func (c *compiler) nonEmpty(r int) int {
	if id, ok := c.ne[r]; ok {
		return id
	}
	id := c.newRule(c.rules[r].pos)
	c.rules[id].owner = c.rules[r].owner
	c.ne[r] = id
	c.null = append(c.null, false)
	var alts [][]item
	for _, a := range c.rules[r].alts {
		if !c.allNull(a) {
			alts = append(alts, a)
			continue
		}
		// Every item can be empty: the first non-empty one is the k-th.
		for k := range a {
			first := item{ref: true, arg: c.nonEmpty(a[k].arg)}
			alts = append(alts, append([]item{first}, a[k+1:]...))
		}
	}
	c.rules[id].alts = alts
	return id
}

// leftRecursion refuses a rule that can reach itself without reading a
// byte: expanding it would never end.
func (c *compiler) leftRecursion() error {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(c.rules))
	var visit func(r int, path []int) error
	visit = func(r int, path []int) error {
		color[r] = grey
		path = append(path, r)
		for _, a := range c.rules[r].alts {
			for _, it := range a {
				if !it.ref {
					break
				}
				switch color[it.arg] {
				case grey:
					return c.leftRecursive(it.arg, path)
				case white:
					if err := visit(it.arg, path); err != nil {
						return err
					}
				}
				if !c.null[it.arg] {
					break
				}
			}
		}
		color[r] = black
		return nil
	}
	for r := range c.rules {
		if color[r] == white {
			if err := visit(r, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// leftRecursive reports the cycle of rules from r back to itself, naming
// the first rule on it that has a name.
func (c *compiler) leftRecursive(r int, path []int) error {
	cycle := path
	for i, p := range path {
		if p == r {
			cycle = path[i:]
			break
		}
	}
	for _, p := range cycle {
		if c.rules[p].name != "" {
			return c.b.errorf(c.rules[p].pos, "rule %q is left-recursive: it can reach itself without reading a byte", c.rules[p].name)
		}
	}
	return c.b.errorf(c.rules[r].pos, "this construct can repeat itself without reading a byte")
}

// flatten lays the rules out as one array of elements, each alternative
// ending with eEnd, and computes the shortest lengths.
func (c *compiler) flatten(root int) *Grammar {
	g := &Grammar{sets: c.sets, root: int32(root), rules: make([][]int32, len(c.rules)), names: make([]string, len(c.rules)),
		owners: make([]string, len(c.rules)), rulePos: make([]int32, len(c.rules)), source: c.b.source, text: c.b.text}
	for r, lr := range c.rules {
		g.names[r] = lr.name
		g.owners[r] = c.rules[lr.owner].name
		g.rulePos[r] = int32(lr.pos)
		for _, a := range lr.alts {
			g.rules[r] = append(g.rules[r], int32(len(g.elems)))
			for range len(a) + 1 {
				g.ruleOf = append(g.ruleOf, int32(r))
			}
			for _, it := range a {
				k := eClass
				if it.ref {
					k = eRef
				}
				g.elems = append(g.elems, elem{k, int32(it.arg)})
			}
			g.elems = append(g.elems, elem{eEnd, 0})
		}
	}
	// Fewest bytes per rule, by relaxation: every rule left is productive,
	// so every length ends finite.
	minLen := make([]int, len(c.rules))
	for r := range minLen {
		minLen[r] = math.MaxInt32
	}
	altLen := func(start int32) int {
		n := 0
		for p := start; g.elems[p].kind != eEnd; p++ {
			if e := g.elems[p]; e.kind == eClass {
				n++
			} else {
				n += minLen[e.arg]
			}
			n = min(n, math.MaxInt32)
		}
		return n
	}
	for changed := true; changed; {
		changed = false
		for r, starts := range g.rules {
			for _, s := range starts {
				if n := altLen(s); n < minLen[r] {
					minLen[r], changed = n, true
				}
			}
		}
	}
	g.suffixMin = make([]int32, len(g.elems))
	for p := len(g.elems) - 1; p >= 0; p-- {
		switch e := g.elems[p]; e.kind {
		case eEnd:
			g.suffixMin[p] = 0
		case eClass:
			g.suffixMin[p] = sat(1 + int(g.suffixMin[p+1]))
		case eRef:
			g.suffixMin[p] = sat(minLen[e.arg] + int(g.suffixMin[p+1]))
		}
	}
	g.minLen = minLen[root]
	for _, ch := range c.chains {
		if ch.twin < 0 {
			continue
		}
		if g.twins == nil {
			g.twins = make([]twin, len(g.elems))
		}
		q := g.rules[ch.twin][0]
		for k, r := range ch.rules {
			p := g.rules[r][0]
			// At x: k+1 more x, this one included. After x (only in Ok,
			// k > 1): k more.
			g.twins[p] = twin{q, int32(k + 1)}
			if k > 0 {
				g.twins[p+1] = twin{q + 1, int32(k)}
			}
		}
	}
	return g
}

func sat(n int) int32 { return int32(min(n, math.MaxInt32)) }

// String describes the grammar's size.
func (g *Grammar) String() string {
	return fmt.Sprintf("grammar of %d rules, %d elements", len(g.rules), len(g.elems))
}
