package similar

// The parameters K, W, Threshold and MinShared are checked here on the
// course's own exercises: copies of a reference solution, however
// disguised, must be flagged; solutions written independently must not;
// the stubs must share nothing with anything.
//
// Run with -v to see the scores.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// exercise is the material of one exercise.
type exercise struct {
	name  string
	stubs map[string][]byte // exercises/NN/*.go without the tests
	sol   map[string][]byte // solutions/NN/*.go
	base  *Base
	ref   *Fingerprint
}

func loadExercise(t testing.TB, name string) exercise {
	t.Helper()
	ex := exercise{
		name:  name,
		stubs: loadGo(t, filepath.Join(root, "exercises", name), false),
		sol:   loadGo(t, filepath.Join(root, "solutions", name), false),
	}
	ex.base = NewBase(ex.stubs)
	ex.ref = Of(ex.sol, ex.base)
	return ex
}

// learner fingerprints a learner's folder: the stubs, with files in place
// of those they wrote.
func (ex exercise) learner(files map[string][]byte) *Fingerprint {
	return Of(withStubs(ex.stubs, files), ex.base)
}

// variants returns the folders under testdata/kind/exercise (folder name
// → files). A file named x.go.txt is x.go kept out of gofmt's way.
func variants(t testing.TB, kind, exercise string) map[string]map[string][]byte {
	t.Helper()
	dir := filepath.Join("testdata", kind, exercise)
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string][]byte{}
	for _, e := range entries {
		files := map[string][]byte{}
		sub, err := os.ReadDir(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range sub {
			src, err := os.ReadFile(filepath.Join(dir, e.Name(), f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[strings.TrimSuffix(f.Name(), ".txt")] = src
		}
		out[e.Name()] = files
	}
	return out
}

// flagged reports whether Class would report a match.
func flagged(m Match) bool { return m.Score >= Threshold && m.Shared >= MinShared }

// written returns files without those the course gives, which carry
// //grade:given before their package clause.
func written(files map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for name, src := range files {
		if head, _, _ := strings.Cut(string(src), "\npackage "); !strings.Contains(head, "//grade:given") {
			out[name] = src
		}
	}
	return out
}

// subsets returns every non-empty subset of files, each named by its
// files' names: a learner who did only part of the exercise.
func subsets(files map[string][]byte) map[string]map[string][]byte {
	names := sortedNames(files)
	out := map[string]map[string][]byte{}
	for mask := 1; mask < 1<<len(names); mask++ {
		part := map[string][]byte{}
		var label []string
		for i, n := range names {
			if mask&(1<<i) != 0 {
				part[n] = files[n]
				label = append(label, n)
			}
		}
		out[strings.Join(label, "+")] = part
	}
	return out
}

// summary formats the smallest, median and largest of scores.
func summary(scores []float64) string {
	if len(scores) == 0 {
		return "none"
	}
	s := slices.Sorted(slices.Values(scores))
	return fmt.Sprintf("min %.2f, median %.2f, max %.2f of %d", s[0], s[len(s)/2], s[len(s)-1], len(s))
}

// TestCopiesAreFlagged: the reference solution of every exercise, put
// through each disguise alone and through all of them, matches the
// original at or above the threshold.
func TestCopiesAreFlagged(t *testing.T) {
	disguises := []struct {
		name string
		f    func(t testing.TB, ex string, files map[string][]byte) map[string][]byte
	}{
		{"reprinted without comments", func(t testing.TB, ex string, files map[string][]byte) map[string][]byte {
			return parsePkg(t, files).print(t)
		}},
		{"every local name renamed", func(t testing.TB, ex string, files map[string][]byte) map[string][]byte {
			p := parsePkg(t, files)
			p.rename(keepNames(t, ex))
			return p.print(t)
		}},
		{"independent statements swapped", func(t testing.TB, ex string, files map[string][]byte) map[string][]byte {
			p := parsePkg(t, files)
			if p.reorderStatements() == 0 {
				return nil
			}
			return p.print(t)
		}},
		{"declarations reversed", func(t testing.TB, ex string, files map[string][]byte) map[string][]byte {
			p := parsePkg(t, files)
			p.reorderDecls()
			return p.print(t)
		}},
		{"files merged", func(t testing.TB, ex string, files map[string][]byte) map[string][]byte {
			return parsePkg(t, files).merge(t)
		}},
		{"one line per file", func(t testing.TB, ex string, files map[string][]byte) map[string][]byte {
			return minify(t, files)
		}},
		{"all of these", disguise},
	}
	exs := exerciseNames(t)
	for _, d := range disguises {
		var scores []float64
		for _, name := range exs {
			ex := loadExercise(t, name)
			files := d.f(t, name, ex.sol)
			if files == nil {
				continue // nothing to swap in this exercise
			}
			m := Compare(ex.ref, Of(files, ex.base))
			scores = append(scores, m.Score)
			if !flagged(m) {
				t.Errorf("%s, %s: score %.2f with %d hashes shared; want at least %.2f and %d", name, d.name, m.Score, m.Shared, Threshold, MinShared)
			}
		}
		t.Logf("%-32s %s", d.name+":", summary(scores))
	}
}

// TestPartialCopiesAreFlagged: a learner who copies some of the reference's
// files, disguised, and leaves the other stubs as they are, is flagged
// whenever the copy is large enough to report at all. The files the
// course gives (//grade:given) are no one's work to copy: the grader
// builds its own.
func TestPartialCopiesAreFlagged(t *testing.T) {
	var scores []float64
	small := 0
	for _, name := range exerciseNames(t) {
		ex := loadExercise(t, name)
		for label, part := range subsets(written(ex.sol)) {
			m := Compare(ex.ref, ex.learner(disguise(t, name, part)))
			if m.Shared < MinShared {
				small++
				continue
			}
			scores = append(scores, m.Score)
			if m.Score < Threshold {
				t.Errorf("%s, a disguised copy of %s: score %.2f with %d hashes shared; want at least %.2f", name, label, m.Score, m.Shared, Threshold)
			}
		}
	}
	t.Logf("partial copies: %s; %d too small to report", summary(scores), small)
}

// TestHandwrittenCopiesAreFlagged: copies edited by hand, in
// testdata/copies, in ways the syntax-tree transformations do not try.
func TestHandwrittenCopiesAreFlagged(t *testing.T) {
	n := 0
	for _, name := range exerciseNames(t) {
		ex := loadExercise(t, name)
		for v, files := range variants(t, "copies", name) {
			n++
			// A copy merged into one file replaces every stub that holds code.
			var fp *Fingerprint
			if _, ok := files["all.go"]; ok {
				fp = Of(files, ex.base)
			} else {
				fp = ex.learner(files)
			}
			m := Compare(ex.ref, fp)
			t.Logf("%s, copy %s: score %.2f, %d shared, at %v and %v", name, v, m.Score, m.Shared, m.A, m.B)
			if !flagged(m) {
				t.Errorf("%s, copy %s: score %.2f with %d hashes shared; want at least %.2f and %d", name, v, m.Score, m.Shared, Threshold, MinShared)
			}
		}
	}
	if n < 3 {
		t.Errorf("found %d handwritten copies in testdata/copies; want at least 3", n)
	}
}

// TestIndependentSolutionsAreNotFlagged: solutions written independently of
// the reference, with other algorithms and structure (testdata/independent,
// each checked against the exercise's tests when written), are not flagged
// against the reference or against each other, whole or in part.
func TestIndependentSolutionsAreNotFlagged(t *testing.T) {
	var whole, partial []float64
	exercises := 0
	for _, name := range exerciseNames(t) {
		ind := variants(t, "independent", name)
		if len(ind) == 0 {
			continue
		}
		exercises++
		if len(ind) < 2 {
			t.Errorf("%s: %d independent solutions; want at least 2", name, len(ind))
		}
		ex := loadExercise(t, name)
		solutions := map[string]map[string][]byte{"reference": ex.sol}
		for v, files := range ind {
			solutions[v] = files
		}
		// Whole solutions, and every part of each, against every other
		// author's parts.
		type part struct {
			author, label string
			whole         bool
			fp            *Fingerprint
		}
		var parts []part
		for author, files := range solutions {
			all := strings.Join(sortedNames(files), "+")
			for label, files := range subsets(files) {
				parts = append(parts, part{author, label, label == all, ex.learner(files)})
			}
		}
		for i, a := range parts {
			for _, b := range parts[i+1:] {
				if a.author == b.author {
					continue
				}
				m := Compare(a.fp, b.fp)
				if a.whole && b.whole {
					whole = append(whole, m.Score)
					t.Logf("%s: %s and %s: score %.2f, %d shared", name, a.author, b.author, m.Score, m.Shared)
				} else if m.Shared >= MinShared {
					partial = append(partial, m.Score)
				}
				if flagged(m) {
					t.Errorf("%s: %s's %s and %s's %s flagged: score %.2f, %d shared, at %v and %v",
						name, a.author, a.label, b.author, b.label, m.Score, m.Shared, m.A, m.B)
				}
			}
		}
	}
	if exercises < 3 {
		t.Errorf("independent solutions for %d exercises in testdata/independent; want at least 3", exercises)
	}
	t.Logf("whole independent solutions: %s", summary(whole))
	t.Logf("parts sharing at least MinShared: %s", summary(partial))
}

// TestStubsShareNothing: with the stubs as base, the stubs themselves
// leave an empty fingerprint, even moved to other files and reformatted,
// and so share nothing with any solution.
func TestStubsShareNothing(t *testing.T) {
	for _, name := range exerciseNames(t) {
		ex := loadExercise(t, name)
		moved := map[string][]byte{}
		for file, src := range minify(t, ex.stubs) {
			moved["moved_"+file] = src
		}
		for what, files := range map[string]map[string][]byte{"stubs": ex.stubs, "stubs moved and squashed": moved} {
			if fp := Of(files, ex.base); fp.Size() != 0 {
				t.Errorf("%s: %s have %d hashes left after the base; want 0", name, what, fp.Size())
			}
		}
		others := map[string]*Fingerprint{"reference": ex.ref, "disguised copy": Of(disguise(t, name, ex.sol), ex.base)}
		for v, files := range variants(t, "independent", name) {
			others[v] = ex.learner(files)
		}
		stub := Of(ex.stubs, ex.base)
		for who, fp := range others {
			if m := Compare(stub, fp); m.Shared != 0 || m.Score != 0 {
				t.Errorf("%s: the stubs and the %s share %d hashes, score %.2f; want 0", name, who, m.Shared, m.Score)
			}
		}
		// Without the base, the stubs are code like any other.
		if Of(ex.stubs, nil).Size() == 0 {
			t.Errorf("%s: the stubs have no hashes even without a base", name)
		}
	}
}

// TestUnrelatedSolutionsAreNotFlagged: the reference solutions of two
// different exercises are not flagged against each other.
func TestUnrelatedSolutionsAreNotFlagged(t *testing.T) {
	var exs []exercise
	for _, name := range exerciseNames(t) {
		exs = append(exs, loadExercise(t, name))
	}
	var scores []float64
	for i, a := range exs {
		for _, b := range exs[i+1:] {
			m := Compare(a.ref, b.ref)
			scores = append(scores, m.Score)
			if flagged(m) {
				t.Errorf("the solutions of %s and %s are flagged: score %.2f, %d shared", a.name, b.name, m.Score, m.Shared)
			}
		}
	}
	t.Logf("solutions of different exercises: %s", summary(scores))
}

// TestClassOfOneExercise: a class with a disguised copy of the reference,
// two independent solutions, a disguised copy of one of those, a learner
// who only has the stubs and one who did not submit: exactly the two
// copies are reported.
func TestClassOfOneExercise(t *testing.T) {
	const name = "05-penalties"
	ex := loadExercise(t, name)
	ind := variants(t, "independent", name)
	learners := map[string]*Fingerprint{
		"ada":   Of(disguise(t, name, ex.sol), ex.base),
		"bob":   ex.learner(ind["a"]),
		"cyd":   ex.learner(ind["b"]),
		"dee":   Of(disguise(t, name, withStubs(ex.stubs, ind["b"])), ex.base),
		"eve":   ex.learner(nil),
		"fritz": nil,
	}
	got := Class(name, learners, ex.ref, Threshold, MinShared)
	var pairs []string
	for _, p := range got {
		pairs = append(pairs, p.A+"~"+p.B)
		if p.Exercise != name {
			t.Errorf("pair %s~%s has exercise %q; want %q", p.A, p.B, p.Exercise, name)
		}
		if len(p.Match.A) == 0 || len(p.Match.B) == 0 {
			t.Errorf("pair %s~%s names no lines: %v, %v", p.A, p.B, p.Match.A, p.Match.B)
		}
	}
	slices.Sort(pairs)
	if want := []string{"ada~" + Reference, "cyd~dee"}; !slices.Equal(pairs, want) {
		t.Errorf("Class reported %v; want %v", pairs, want)
	}
}
