package similar

import (
	"cmp"
	"slices"
)

// The thresholds Class is meant to be called with, chosen on the course's
// exercises (see the tests): copies of a reference solution, renamed,
// reformatted, reordered and merged into one file, whole or in part, score
// above Threshold; solutions written independently, whole or in part,
// score below it.
const (
	// Threshold is the Score at or above which two submissions are
	// reported.
	Threshold = 0.55
	// MinShared is the number of shared hashes below which two submissions
	// are not reported, whatever their Score. It is about what a function
	// of a dozen lines leaves: shorter ones (a formula, a guard and a
	// return) come out alike from anyone who follows the exercise's doc
	// comments, and a learner who wrote only those would otherwise match
	// everyone who did the same.
	MinShared = 20
)

// Reference is the name Class gives the reference solution in a Pair.
const Reference = "solution"

// A Pair is two submissions of one exercise that share code.
type Pair struct {
	Exercise string
	// A and B are the learners' names, A before B in byte order; when A's
	// code matches the reference solution, B is Reference.
	A, B string
	// Match is what they share; Match.A is in A's files, Match.B in B's.
	Match Match
}

// Class compares the fingerprints of every two learners of an exercise
// (learner name → fingerprint; nil for a learner who did not submit it),
// and every learner's with the reference solution's (nil: none), and
// returns the pairs whose Score is at least threshold and who share at
// least minShared hashes: highest Score first, then most shared, then by
// name.
//
// A learner named like Reference is compared like any other, but a report
// could not tell it from the reference solution: name learners otherwise.
func Class(exercise string, learners map[string]*Fingerprint, reference *Fingerprint, threshold float64, minShared int) []Pair {
	names := make([]string, 0, len(learners))
	for name, fp := range learners {
		if fp.Size() > 0 {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var out []Pair
	// flags reports whether a and b are a pair to report, cheaply: most
	// pairs are not, and the spans are computed only for those that are.
	flags := func(a, b *Fingerprint) bool {
		n := shared(a, b)
		if n == 0 || n < minShared {
			return false
		}
		return float64(n)/float64(min(a.Size(), b.Size())) >= threshold
	}
	for i, a := range names {
		fa := learners[a]
		if reference.Size() > 0 && flags(fa, reference) {
			out = append(out, Pair{exercise, a, Reference, Compare(fa, reference)})
		}
		for _, b := range names[i+1:] {
			if fb := learners[b]; flags(fa, fb) {
				out = append(out, Pair{exercise, a, b, Compare(fa, fb)})
			}
		}
	}
	slices.SortFunc(out, func(p, q Pair) int {
		return cmp.Or(cmp.Compare(q.Match.Score, p.Match.Score), cmp.Compare(q.Match.Shared, p.Match.Shared),
			cmp.Compare(p.A, q.A), cmp.Compare(p.B, q.B))
	})
	return out
}
