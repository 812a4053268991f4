package constrain

import (
	"fmt"
	"unicode/utf8"
)

// runeRange is a range of code points, lo..hi inclusive.
type runeRange struct{ lo, hi rune }

// runeSet matches one character of the given ranges, written in UTF-8: an
// alternative of byte-class sequences, one per stretch of characters whose
// encodings share a length and all but their last few bytes' ranges.
// Surrogates, which UTF-8 cannot encode, are left out.
func runeSet(ranges []runeRange, pos int) *node {
	var alts []*node
	// Ranges with the same leading byte class are merged into one
	// sequence's tail by the automaton's stacks; keeping single bytes as
	// one class keeps the common ASCII case to one element.
	var ascii byteSet
	for _, r := range ranges {
		lo, hi := max(r.lo, 0), min(r.hi, utf8.MaxRune)
		for _, part := range []runeRange{{lo, min(hi, 0xD7FF)}, {max(lo, 0xE000), hi}} {
			if part.lo > part.hi {
				continue
			}
			for _, seq := range utf8Sequences(part.lo, part.hi) {
				if len(seq) == 1 {
					ascii.add(seq[0][0], seq[0][1])
					continue
				}
				n := seqNode(pos)
				for _, br := range seq {
					var s byteSet
					s.add(br[0], br[1])
					n.kids = append(n.kids, bytesNode(s, pos))
				}
				alts = append(alts, n)
			}
		}
	}
	if !ascii.empty() {
		alts = append([]*node{bytesNode(ascii, pos)}, alts...)
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return altNode(pos, alts...)
}

// utf8Sequences splits lo..hi (no surrogates) into stretches whose UTF-8
// encodings are byte-range sequences: every character of the stretch, and
// only those, has its i-th byte in the i-th range.
func utf8Sequences(lo, hi rune) [][][2]byte {
	// First split at the boundaries between encoding lengths.
	for _, b := range []rune{0x7F, 0x7FF, 0xFFFF} {
		if lo <= b && b < hi {
			return append(utf8Sequences(lo, b), utf8Sequences(b+1, hi)...)
		}
	}
	n := utf8.RuneLen(lo)
	// Then split until, for every continuation byte, either the range
	// covers all of its 64 values or the bytes before it are the same.
	for i := 1; i < n; i++ {
		m := rune(1)<<(6*i) - 1
		if lo&^m != hi&^m {
			if lo&m != 0 {
				return append(utf8Sequences(lo, lo|m), utf8Sequences((lo|m)+1, hi)...)
			}
			if hi&m != m {
				return append(utf8Sequences(lo, (hi&^m)-1), utf8Sequences(hi&^m, hi)...)
			}
		}
	}
	var a, b [utf8.UTFMax]byte
	utf8.EncodeRune(a[:], lo)
	utf8.EncodeRune(b[:], hi)
	seq := make([][2]byte, n)
	for i := range n {
		seq[i] = [2]byte{a[i], b[i]}
	}
	return [][][2]byte{seq}
}

// jsonChars matches one character of the ranges as it is written inside a
// JSON string: itself, or, for '"', '\' and control characters, which a
// JSON string may not hold as they are, an escape.
func jsonChars(ranges []runeRange, pos int) *node {
	var plain []runeRange
	var escapes []*node
	for _, r := range ranges {
		lo := r.lo
		for c := lo; c <= r.hi && c < 0x80; c++ {
			if esc, ok := jsonEscape(c); ok {
				if lo < c {
					plain = append(plain, runeRange{lo, c - 1})
				}
				escapes = append(escapes, literal(esc, pos))
				lo = c + 1
			}
		}
		if lo <= r.hi {
			plain = append(plain, runeRange{lo, r.hi})
		}
	}
	if len(plain) > 0 {
		escapes = append([]*node{runeSet(plain, pos)}, escapes...)
	}
	if len(escapes) == 1 {
		return escapes[0]
	}
	return altNode(pos, escapes...)
}

// jsonEscape returns the escape of a character a JSON string cannot hold
// as it is.
func jsonEscape(c rune) (string, bool) {
	switch c {
	case '"':
		return `\"`, true
	case '\\':
		return `\\`, true
	case '\n':
		return `\n`, true
	case '\t':
		return `\t`, true
	case '\r':
		return `\r`, true
	}
	if c < 0x20 {
		return fmt.Sprintf(`\u%04x`, c), true
	}
	return "", false
}
