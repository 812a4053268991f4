package constrain

import "math/bits"

// The three front ends (regular expressions, JSON Schema, the grammar
// format) all build the same small tree of nodes over bytes, which
// compile() lowers into a Grammar.

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(lo, hi byte) {
	for b := int(lo); b <= int(hi); b++ {
		s[b>>6] |= 1 << (b & 63)
	}
}

func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }

func (s *byteSet) empty() bool { return s[0]|s[1]|s[2]|s[3] == 0 }

func (s *byteSet) count() int {
	return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) + bits.OnesCount64(s[2]) + bits.OnesCount64(s[3])
}

type nodeKind uint8

const (
	nBytes  nodeKind = iota // one byte of set
	nSeq                    // kids one after another (none: the empty string)
	nAlt                    // one of kids (none: no string at all)
	nRef                    // the rule numbered rule
	nRepeat                 // kids[0] between min and max times (max < 0: no limit)
)

// node is one construct of a language, with the offset in its source that
// errors about it point to.
type node struct {
	kind     nodeKind
	set      byteSet
	kids     []*node
	rule     int
	min, max int
	pos      int
}

func bytesNode(set byteSet, pos int) *node { return &node{kind: nBytes, set: set, pos: pos} }
func seqNode(pos int, kids ...*node) *node { return &node{kind: nSeq, kids: kids, pos: pos} }
func altNode(pos int, kids ...*node) *node { return &node{kind: nAlt, kids: kids, pos: pos} }
func refNode(rule, pos int) *node          { return &node{kind: nRef, rule: rule, pos: pos} }
func repeatNode(n *node, lo, hi, pos int) *node {
	return &node{kind: nRepeat, kids: []*node{n}, min: lo, max: hi, pos: pos}
}

// literal matches exactly the bytes of s.
func literal(s string, pos int) *node {
	n := seqNode(pos)
	for i := 0; i < len(s); i++ {
		var set byteSet
		set.add(s[i], s[i])
		n.kids = append(n.kids, bytesNode(set, pos))
	}
	return n
}

// builder collects the named rules of a language being compiled.
type builder struct {
	source string // for errors: "grammar", "regular expression", "JSON schema"
	text   string // the source text, for errors' lines and columns
	rules  []ruleDef
	names  map[string]int
}

type ruleDef struct {
	name    string
	body    *node // nil: referenced but not (yet) defined
	pos     int   // where it is defined, or first referenced
	defined bool
}

func newBuilder(source, text string) *builder {
	return &builder{source: source, text: text, names: map[string]int{}}
}

// rule returns the number of the rule called name, adding it, undefined,
// if it is new.
func (b *builder) rule(name string, pos int) int {
	if id, ok := b.names[name]; ok {
		return id
	}
	b.rules = append(b.rules, ruleDef{name: name, pos: pos})
	b.names[name] = len(b.rules) - 1
	return len(b.rules) - 1
}

func (b *builder) errorf(pos int, format string, args ...any) *SyntaxError {
	return syntaxError(b.source, b.text, pos, format, args...)
}
