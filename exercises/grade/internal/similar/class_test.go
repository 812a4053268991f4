package similar

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// classFiles builds a class of n learners for one exercise from the
// course's material: disguised copies of the reference, whole and in part,
// the independent solutions, their parts and disguised copies of them, the
// bare stubs, and learners who did not submit (nil).
func classFiles(t testing.TB, ex exercise, n int) map[string]map[string][]byte {
	t.Helper()
	pool := []map[string][]byte{disguise(t, ex.name, ex.sol), withStubs(ex.stubs, nil)}
	for _, part := range subsets(ex.sol) {
		pool = append(pool, withStubs(ex.stubs, disguise(t, ex.name, part)))
	}
	for _, files := range variants(t, "independent", ex.name) {
		pool = append(pool, withStubs(ex.stubs, files), disguise(t, ex.name, withStubs(ex.stubs, files)))
		for _, part := range subsets(files) {
			pool = append(pool, withStubs(ex.stubs, part))
		}
	}
	class := map[string]map[string][]byte{}
	for i := range n {
		name := fmt.Sprintf("learner%03d", i)
		if i%17 == 16 {
			class[name] = nil
			continue
		}
		class[name] = pool[i%len(pool)]
	}
	return class
}

// classOf is classFiles fingerprinted.
func classOf(t testing.TB, ex exercise, n int) map[string]*Fingerprint {
	t.Helper()
	class := map[string]*Fingerprint{}
	for name, files := range classFiles(t, ex, n) {
		if files != nil {
			class[name] = Of(files, ex.base)
		} else {
			class[name] = nil
		}
	}
	return class
}

// bruteClass is Class by its definition: Compare on every pair.
func bruteClass(exercise string, learners map[string]*Fingerprint, reference *Fingerprint, threshold float64, minShared int) []Pair {
	var out []Pair
	names := sortedNames(learners)
	keep := func(m Match) bool { return m.Shared > 0 && m.Score >= threshold && m.Shared >= minShared }
	for i, a := range names {
		if m := Compare(learners[a], reference); keep(m) {
			out = append(out, Pair{exercise, a, Reference, m})
		}
		for _, b := range names[i+1:] {
			if m := Compare(learners[a], learners[b]); keep(m) {
				out = append(out, Pair{exercise, a, b, m})
			}
		}
	}
	slices.SortFunc(out, func(p, q Pair) int {
		return cmp.Or(-cmp.Compare(p.Match.Score, q.Match.Score), -cmp.Compare(p.Match.Shared, q.Match.Shared),
			cmp.Compare(p.A, q.A), cmp.Compare(p.B, q.B))
	})
	return out
}

// TestClassIsEveryPairCompared: Class returns exactly the pairs that
// Compare scores at or above the thresholds, highest first, for several
// thresholds, with and without a reference.
func TestClassIsEveryPairCompared(t *testing.T) {
	for _, name := range []string{"05-penalties", "07-kv-cache"} {
		ex := loadExercise(t, name)
		class := classOf(t, ex, 40)
		for _, c := range []struct {
			threshold float64
			minShared int
			ref       *Fingerprint
		}{
			{Threshold, MinShared, ex.ref},
			{0.2, 5, ex.ref},
			{0, 0, ex.ref},
			{Threshold, MinShared, nil},
			{1.01, 0, ex.ref},
		} {
			got := Class(name, class, c.ref, c.threshold, c.minShared)
			want := bruteClass(name, class, c.ref, c.threshold, c.minShared)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, threshold %v, minShared %d, reference %v: Class gave %d pairs, comparing every pair gives %d",
					name, c.threshold, c.minShared, c.ref != nil, len(got), len(want))
			}
			for _, p := range got {
				if p.B != Reference && p.A >= p.B {
					t.Errorf("pair %s~%s: A is not before B", p.A, p.B)
				}
			}
			if c.threshold == Threshold && c.ref != nil && len(got) == 0 {
				t.Errorf("%s: a class with copies in it has no pair to report", name)
			}
		}
	}
}

func TestClassOfNobody(t *testing.T) {
	ex := loadExercise(t, "02-softmax")
	for _, learners := range []map[string]*Fingerprint{nil, {}, {"ann": nil}, {"ann": Of(ex.stubs, ex.base)}} {
		if got := Class("02-softmax", learners, ex.ref, Threshold, MinShared); len(got) != 0 {
			t.Errorf("Class of %v = %v; want no pairs", learners, got)
		}
	}
}
