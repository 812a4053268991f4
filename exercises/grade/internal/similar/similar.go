// Package similar finds Go code that two submissions share, after names and
// formatting are set aside: the check that tells a grader which learners
// copied an exercise's code from each other or from the reference solution.
//
// It fingerprints code the way MOSS does (Schleimer, Wilkerson and Aiken,
// "Winnowing: local algorithms for document fingerprinting", SIGMOD 2003):
//
//  1. The files are read as a stream of tokens with go/scanner, comments
//     dropped. Every identifier a renaming could change becomes the same
//     symbol; keywords, operators, predeclared names (len, float64, nil)
//     and members of imported packages (math.Exp) keep their identity,
//     since no renaming can change them and they tell solutions apart.
//     Literals become their kind (a number, a string), and the separators
//     that only line breaks add or remove (a semicolon or comma before a
//     closing bracket) are dropped, so formatting makes no difference.
//  2. Every run of K consecutive symbols (a k-gram) is hashed.
//  3. Winnowing keeps, in every window of W consecutive hashes, the
//     smallest. Two programs that share a run of at least K+W-1 symbols
//     therefore keep at least one hash in common for it, whatever surrounds
//     it, and each program keeps only about 2/(W+1) of its hashes.
//  4. The k-grams of the exercise's stub files (the Base, which everyone
//     starts from) are passed over: a window picks one only when it holds
//     nothing else, and it is then dropped. Only code the learner wrote
//     counts, and a shared run of code around a piece of stub code is
//     still found.
//
// Two fingerprints are compared by the share of hashes they have in common
// (Compare), and a class by comparing every pair of learners and every
// learner with the reference solution (Class).
package similar

import (
	"cmp"
	"fmt"
	"slices"
)

// The parameters of the fingerprints, chosen on the course's exercises (see
// the tests): K long enough that the idioms every solution of a task uses
// (a loop over a slice, a running maximum) are rarely a whole k-gram, W
// small enough that a copied function of a few lines is still seen.
const (
	// K is the number of symbols in a k-gram.
	K = 12
	// W is the number of consecutive k-gram hashes in a winnowing window.
	W = 6
	// Guarantee is the length of the shortest run of symbols that two
	// programs are sure to be found sharing: K+W-1.
	Guarantee = K + W - 1
)

// params are a choice of K and W; the tests try others.
type params struct{ k, w int }

var defaults = params{K, W}

// A Base is the code every learner of an exercise is given: its stub files.
// Fingerprints made with it leave that code out.
type Base struct {
	k      int
	hashes map[uint64]bool // every k-gram of the stubs, not only the winnowed ones
}

// NewBase returns the base of an exercise whose stub files are files (file
// name → source). Like Of it reads any text, Go or not.
func NewBase(files map[string][]byte) *Base {
	return newBase(files, defaults)
}

func newBase(files map[string][]byte, p params) *Base {
	b := &Base{k: p.k, hashes: map[uint64]bool{}}
	for _, items := range tokenize(sources(files)) {
		for _, h := range kgrams(items, p.k) {
			b.hashes[h] = true
		}
	}
	return b
}

// A Fingerprint is the winnowed hashes of one submission's code for one
// exercise, with where each came from. Make one with Of.
type Fingerprint struct {
	files  []string // the file names, sorted
	hashes []uint64 // the distinct hashes, in increasing order
	// at[start[i]:start[i+1]] are the places of hashes[i].
	start []int32
	at    []place
}

// A place is where a k-gram is: its file and the lines of its first and
// last token.
type place struct {
	file     int32
	from, to int32
}

// Of fingerprints one submission's files for an exercise (file name →
// source), leaving out every k-gram that occurs in base (nil: nothing is
// left out).
//
// Any bytes are accepted. Files that do not parse, or are not Go at all,
// are still scanned token by token (text the scanner cannot read becomes a
// token of its own), so a syntax error hides nothing. The time is linear in
// the size of the files.
func Of(files map[string][]byte, base *Base) *Fingerprint {
	return of(files, base, defaults)
}

// sources returns files as sources in the order of their names, so that a
// fingerprint does not depend on map order.
func sources(files map[string][]byte) []source {
	out := make([]source, 0, len(files))
	for name, src := range files {
		out = append(out, source{name: name, src: src})
	}
	slices.SortFunc(out, func(a, b source) int { return cmp.Compare(a.name, b.name) })
	return out
}

// print is a selected hash and its place, before they are grouped.
type print struct {
	hash uint64
	place
}

// of is Of with parameters p; base must have been made with the same k.
func of(files map[string][]byte, base *Base, p params) *Fingerprint {
	srcs := sources(files)
	fp := &Fingerprint{files: make([]string, len(srcs))}
	var prints []print
	for f, items := range tokenize(srcs) {
		fp.files[f] = srcs[f].name
		hs := kgrams(items, p.k)
		skip := make([]bool, len(hs))
		if base != nil {
			for i, h := range hs {
				skip[i] = base.hashes[h]
			}
		}
		for _, i := range winnow(hs, p.w, skip) {
			prints = append(prints, print{hs[i], place{int32(f), items[i].line, items[i+p.k-1].line}})
		}
	}
	slices.SortFunc(prints, func(a, b print) int {
		return cmp.Or(cmp.Compare(a.hash, b.hash), cmp.Compare(a.file, b.file), cmp.Compare(a.from, b.from))
	})
	fp.at = make([]place, len(prints))
	for i, pr := range prints {
		if i == 0 || pr.hash != prints[i-1].hash {
			fp.hashes = append(fp.hashes, pr.hash)
			fp.start = append(fp.start, int32(i))
		}
		fp.at[i] = pr.place
	}
	fp.start = append(fp.start, int32(len(prints)))
	return fp
}

// Size is the number of distinct hashes in the fingerprint: roughly
// 2/(W+1) of the number of tokens the learner wrote.
func (fp *Fingerprint) Size() int {
	if fp == nil {
		return 0
	}
	return len(fp.hashes)
}

// A Span is a range of lines of one file, From to To inclusive, counting
// from 1.
type Span struct {
	File     string
	From, To int
}

// String returns the span as file:from-to, or file:line for one line.
func (s Span) String() string {
	if s.From == s.To {
		return fmt.Sprintf("%s:%d", s.File, s.From)
	}
	return fmt.Sprintf("%s:%d-%d", s.File, s.From, s.To)
}

// A Match is how much two fingerprints share.
type Match struct {
	// Score is Shared divided by the Size of the smaller fingerprint, from 0
	// to 1: 1 when all the code of one is in the other. It is 0 when either
	// is empty.
	Score float64
	// Shared is the number of distinct hashes in both.
	Shared int
	// A and B are where the shared code is in each: the largest ranges of
	// lines covered by shared k-grams, at most MaxSpans of them, in file and
	// line order.
	A, B []Span
}

// MaxSpans is the largest number of spans a Match lists for each side.
const MaxSpans = 5

// Compare returns what a and b share. Either may be nil, which shares
// nothing.
func Compare(a, b *Fingerprint) Match {
	var m Match
	if a.Size() == 0 || b.Size() == 0 {
		return m
	}
	// The indexes of the shared hashes in a.hashes and b.hashes.
	ia := make([]int, 0, min(len(a.hashes), len(b.hashes)))
	ib := make([]int, 0, cap(ia))
	for i, j := 0, 0; i < len(a.hashes) && j < len(b.hashes); {
		switch {
		case a.hashes[i] < b.hashes[j]:
			i++
		case a.hashes[i] > b.hashes[j]:
			j++
		default:
			ia, ib = append(ia, i), append(ib, j)
			i++
			j++
		}
	}
	m.Shared = len(ia)
	m.Score = float64(m.Shared) / float64(min(len(a.hashes), len(b.hashes)))
	m.A = a.spans(ia)
	m.B = b.spans(ib)
	return m
}

// shared counts the hashes a and b have in common, as Compare does, without
// the spans.
func shared(a, b *Fingerprint) int {
	n := 0
	for i, j := 0, 0; i < len(a.hashes) && j < len(b.hashes); {
		switch {
		case a.hashes[i] < b.hashes[j]:
			i++
		case a.hashes[i] > b.hashes[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// spans returns the ranges of lines covered by the places of the hashes
// with indexes idx: places that overlap or touch are merged, and the
// MaxSpans largest ranges are kept.
func (fp *Fingerprint) spans(idx []int) []Span {
	n := 0
	for _, i := range idx {
		n += int(fp.start[i+1] - fp.start[i])
	}
	ps := make([]place, 0, n)
	for _, i := range idx {
		ps = append(ps, fp.at[fp.start[i]:fp.start[i+1]]...)
	}
	slices.SortFunc(ps, func(a, b place) int {
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.from, b.from))
	})
	// Merged in place: a merged range never runs ahead of the places read.
	merged := ps[:0]
	for _, p := range ps {
		if n := len(merged); n > 0 && merged[n-1].file == p.file && p.from <= merged[n-1].to+1 {
			merged[n-1].to = max(merged[n-1].to, p.to)
			continue
		}
		merged = append(merged, p)
	}
	if len(merged) > MaxSpans {
		// Keep the largest; a stable sort keeps the earlier of equal ones.
		slices.SortStableFunc(merged, func(a, b place) int { return cmp.Compare(b.to-b.from, a.to-a.from) })
		merged = merged[:MaxSpans]
		slices.SortFunc(merged, func(a, b place) int {
			return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.from, b.from))
		})
	}
	out := make([]Span, len(merged))
	for i, p := range merged {
		out[i] = Span{fp.files[p.file], int(p.from), int(p.to)}
	}
	return out
}
