package check

import "testing"

// Limit reports the first few failures of a test that checks many cases
// and only counts the rest, so that one mistake repeated over a hundred
// cases reads as a few lines and a count. Use it as:
//
//	fails := check.NewLimit(t, 5)
//	defer fails.Close()
//	for _, c := range cases {
//		if got := f(c.in); got != c.want {
//			fails.Errorf("f(%v) = %v; want %v", c.in, got, c.want)
//		}
//	}
type Limit struct {
	t     testing.TB
	max   int
	count int
}

// NewLimit returns a Limit that reports up to max failures through t.
func NewLimit(t testing.TB, max int) *Limit {
	return &Limit{t: t, max: max}
}

// Errorf is t.Errorf for the first max failures; after them it only marks
// the test failed and counts.
func (l *Limit) Errorf(format string, args ...any) {
	l.t.Helper()
	l.count++
	if l.count <= l.max {
		l.t.Errorf(format, args...)
		return
	}
	l.t.Fail()
}

// Count is the number of failures so far, reported or not.
func (l *Limit) Count() int {
	return l.count
}

// Close reports how many failures Errorf left out, if any.
func (l *Limit) Close() {
	l.t.Helper()
	if n := l.count - l.max; n > 0 {
		l.t.Errorf("… and %d more like these", n)
	}
}
