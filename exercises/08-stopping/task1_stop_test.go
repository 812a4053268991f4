package stopping

import (
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/exercises/internal/check"
	"math/rand/v2"
	"strings"
	"testing"
)

// pushCase feeds pieces to a matcher and says what every Push must return.
type pushCase struct {
	stops   []string
	include bool
	pieces  []string
	outs    []string // what each Push returns as out, up to the stop
	stop    string   // the stop string found ("" if none)
	flush   string   // what Flush returns afterwards
}

// newMatcher calls NewStopMatcher and stops the test if it returns nil.
func newMatcher(t *testing.T, stops []string, include bool) *StopMatcher {
	t.Helper()
	m := NewStopMatcher(stops, include)
	if m == nil {
		t.Fatalf("NewStopMatcher(%q, %v) = nil; want a matcher", stops, include)
	}
	return m
}

// runPushCases checks every case's Push results one by one, then Flush.
func runPushCases(t *testing.T, cases []pushCase) {
	t.Helper()
	for _, c := range cases {
		m := newMatcher(t, c.stops, c.include)
		var outs []string
		stop, stopped := "", false
		for _, p := range c.pieces {
			out, s, ok := m.Push(p)
			outs = append(outs, out)
			if ok {
				stop, stopped = s, true
				break
			}
		}
		if fmt.Sprintf("%q", outs) != fmt.Sprintf("%q", c.outs) || stop != c.stop || stopped != (c.stop != "") {
			t.Errorf("stops %q include=%v, pushing %q one at a time: Push returned out %q, stop %q (stopped=%v); want out %q, stop %q (stopped=%v)",
				c.stops, c.include, c.pieces, outs, stop, stopped, c.outs, c.stop, c.stop != "")
			continue
		}
		if f := m.Flush(); f != c.flush {
			t.Errorf("stops %q include=%v, after pushing %q: Flush() = %q; want %q", c.stops, c.include, c.pieces, f, c.flush)
		}
	}
}

// TestTask1_Straddling: a stop string split over two or three tokens is held
// back piece by piece and never shown; a false start is released as soon as
// it cannot match any more.
//
//grade:task 1 points 2
func TestTask1_Straddling(t *testing.T) {
	defer check.Recover(t)
	runPushCases(t, []pushCase{
		// "\n\n" arrives as "\n" + "\n".
		{[]string{"\n\n"}, false, []string{"}\n", "\n", "func"}, []string{"}", ""}, "\n\n", ""},
		// "User:" arrives as "Us" + "er:".
		{[]string{"User:"}, false, []string{"Sure", ", it is 42.", "\nUs", "er:", " more"}, []string{"Sure", ", it is 42.", "\n", ""}, "User:", ""},
		// Over three pieces.
		{[]string{"User:"}, false, []string{"ok\nU", "se", "r", ":"}, []string{"ok\n", "", "", ""}, "User:", ""},
		// A false start: "Us" is held, then released once "Used" cannot become "User:".
		{[]string{"User:"}, false, []string{"Hi\nUs", "ed", " Use", "r: bye"}, []string{"Hi\n", "Used", " ", ""}, "User:", ""},
		{[]string{"END"}, false, []string{"EN", "o"}, []string{"", "ENo"}, "", ""},
		// A stop string inside a single piece: what follows it is dropped.
		{[]string{"\n\n"}, false, []string{"one\n\ntwo"}, []string{"one"}, "\n\n", ""},
		// include keeps the stop string, released all at once when complete.
		{[]string{"User:"}, true, []string{"ok", " Us", "er:", " more"}, []string{"ok", " ", "User:"}, "User:", ""},
		{[]string{"\n\n"}, true, []string{"}\n", "\nfunc"}, []string{"}", "\n\n"}, "\n\n", ""},
	})
}

// TestTask1_SeveralStops: with several stop strings, the first to start
// wins; of two starting at the same place, the longer; a tail that could
// still grow into any of them is held.
//
//grade:task 1 points 2
func TestTask1_SeveralStops(t *testing.T) {
	defer check.Recover(t)
	runPushCases(t, []pushCase{
		// Both complete in the second piece: "bc" starts first.
		{[]string{"cd", "bc"}, false, []string{"ab", "cd"}, []string{"a", ""}, "bc", ""},
		// Both in one piece: "User:" starts before "\n\n".
		{[]string{"\n\n", "User:"}, false, []string{"a\nUs", "er:\n\nb"}, []string{"a\n", ""}, "User:", ""},
		// One stop string a prefix of another, both in one piece: the longer.
		{[]string{"ab", "abc"}, true, []string{"xabc"}, []string{"xabc"}, "abc", ""},
		{[]string{"ab", "abc"}, false, []string{"xabcd"}, []string{"x"}, "abc", ""},
		// ... but when "ab" is complete first, it ends the text at once.
		{[]string{"ab", "abc"}, true, []string{"xa", "b", "c"}, []string{"x", "ab"}, "ab", ""},
		// "ab" is held as the start of "abc"; then "bd" completes.
		{[]string{"abc", "bd"}, false, []string{"ab", "d"}, []string{"", "a"}, "bd", ""},
		// The held tail is the longest one that could still grow: "aa" for "aab".
		{[]string{"aab", "b!"}, false, []string{"xaa", "a", "c"}, []string{"x", "a", "aac"}, "", ""},
	})
}

// TestTask1_Flush: with no stop strings every piece passes straight
// through; text held back when the generation ends is released by Flush,
// once.
//
//grade:task 1 points 1
func TestTask1_Flush(t *testing.T) {
	defer check.Recover(t)
	runPushCases(t, []pushCase{
		{nil, false, []string{"a", "", "bc"}, []string{"a", "", "bc"}, "", ""},
		{[]string{"END"}, false, []string{"the ", "xE"}, []string{"the ", "x"}, "", "E"},
		{[]string{"\n\n"}, true, []string{"}", "\n"}, []string{"}", ""}, "", "\n"},
		{[]string{"User:"}, false, []string{"\nUse"}, []string{"\n"}, "", "Use"},
	})
	m := newMatcher(t, []string{"END"}, false)
	m.Push("EN")
	if f := m.Flush(); f != "EN" {
		t.Fatalf(`after Push("EN") with stop "END": Flush() = %q; want "EN"`, f)
	}
	if f := m.Flush(); f != "" {
		t.Errorf(`a second Flush() = %q; want "": the first one released everything`, f)
	}
}

// splits returns every way to cut s into non-empty pieces.
func splits(s string) [][]string {
	if s == "" {
		return [][]string{nil}
	}
	var all [][]string
	for i := 1; i <= len(s); i++ {
		for _, rest := range splits(s[i:]) {
			all = append(all, append([]string{s[:i]}, rest...))
		}
	}
	return all
}

// TestTask1_NeverShowsStop: for every way of cutting a text into pieces,
// after every Push the text shown so far is the start of the final text and
// holds no stop string, and the final text (with Flush) does not depend on
// the cuts. The stop strings of each case have equal lengths, so the final
// text is the text before the first stop string, whatever the cuts.
//
//grade:task 1 points 1
func TestTask1_NeverShowsStop(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		text  string
		stops []string
	}{
		{"}\n\nfunc", []string{"\n\n"}},
		{"ab\nUser:x", []string{"User:"}},
		{"aababa", []string{"aba"}},
		{"abaab", []string{"ab", "ba"}},
		{"x\n\n\ny", []string{"\n\n"}},
		{"Usage: User", []string{"User:"}},
		{"EENEND!", []string{"END"}},
	} {
		for _, include := range []bool{false, true} {
			want := c.text
			first := -1
			for _, s := range c.stops {
				if i := strings.Index(c.text, s); i >= 0 && (first < 0 || i < first) {
					first = i
					want = c.text[:i]
					if include {
						want = c.text[:i+len(s)]
					}
				}
			}
			for _, pieces := range splits(c.text) {
				m := newMatcher(t, c.stops, include)
				shown, stopped := "", false
				for _, p := range pieces {
					out, _, ok := m.Push(p)
					shown += out
					if !strings.HasPrefix(want, shown) {
						t.Fatalf("stops %q include=%v, pieces %q: after Push(%q) the reader has seen %q, which is not the start of the final text %q",
							c.stops, include, pieces, p, shown, want)
					}
					if !include {
						for _, s := range c.stops {
							if strings.Contains(shown, s) {
								t.Fatalf("stops %q, pieces %q: after Push(%q) the reader has seen %q, which contains the stop string %q",
									c.stops, pieces, p, shown, s)
							}
						}
					}
					if ok {
						stopped = true
						break
					}
				}
				if !stopped {
					shown += m.Flush()
				}
				if shown != want || stopped != (first >= 0) {
					t.Fatalf("stops %q include=%v, pieces %q: the reader saw %q in all (stopped=%v); want %q (stopped=%v)",
						c.stops, include, pieces, shown, stopped, want, first >= 0)
				}
			}
		}
	}
}

// randomString returns a string of n bytes drawn from alphabet.
func randomString(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// TestTask1_MatchesEngine: on 3000 random texts over a three-letter
// alphabet, cut into random pieces (empty ones too), with one to three
// random stop strings, every Push and the final Flush return exactly what
// decoding.NewStopMatcher's do. The random cases are the same on every run
// (seeded).
//
//grade:task 1 points 2
func TestTask1_MatchesEngine(t *testing.T) {
	defer check.Recover(t)
	r := rand.New(rand.NewPCG(8, 2024))
	const alphabet = "ab\n"
	for n := 0; n < 3000; n++ {
		stops := make([]string, 1+r.IntN(3))
		for i := range stops {
			stops[i] = randomString(r, alphabet, 1+r.IntN(4))
		}
		include := r.IntN(2) == 1
		text := randomString(r, alphabet, r.IntN(16))
		var pieces []string
		for rest := text; len(rest) > 0 || len(pieces) == 0; {
			k := min(len(rest), r.IntN(5))
			pieces = append(pieces, rest[:k])
			rest = rest[k:]
		}
		mine, ref := newMatcher(t, stops, include), decoding.NewStopMatcher(stops, include)
		stopped := false
		for i, p := range pieces {
			out, stop, ok := mine.Push(p)
			wOut, wStop, wOK := ref.Push(p)
			if out != wOut || stop != wStop || ok != wOK {
				t.Fatalf("stops %q include=%v, pieces %q: Push #%d (%q) returned (%q, %q, %v); want (%q, %q, %v) as decoding.StopMatcher",
					stops, include, pieces, i+1, p, out, stop, ok, wOut, wStop, wOK)
			}
			if ok {
				stopped = true
				break
			}
		}
		if !stopped {
			if f, w := mine.Flush(), ref.Flush(); f != w {
				t.Fatalf("stops %q include=%v, pieces %q: Flush() = %q; want %q as decoding.StopMatcher", stops, include, pieces, f, w)
			}
		}
	}
}
