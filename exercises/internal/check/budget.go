package check

import (
	"strconv"
	"testing"
)

// Budget bounds how many times the code under test may call one of a
// test's fakes: a model's NextLogits, a random number generator, a pick
// or emit function. A loop that never stops would otherwise keep calling
// the fake until go test's 10-minute timeout, print nothing meanwhile, and
// end in a dump of every goroutine. With a budget, the call past the bound
// fails the test at once, with a message that says which call of the
// learner's code went past which bound, and what to look at.
//
// The fake calls Spend each time it is called:
//
//	calls := check.NewBudget(t, "NextLogits")
//	lm := &boundedLM{LM: model, calls: calls} // its NextLogits calls calls.Spend()
//	calls.For("Greedy(model, prompt [0], maxNew 12)", 100, "does your loop stop after maxNew tokens?")
//	got, err := Greedy(lm, []int{0}, 12, nil)
//
// Spend stops the test with t.Fatalf, which ends the test's goroutine with
// runtime.Goexit: the code under test is stopped where it is, even when it
// ignores errors or recovers panics, because graded code runs in the
// test's goroutine (it may not start its own). A fake that returned an
// error instead could be ignored by a loop that retries for ever.
type Budget struct {
	t     testing.TB
	what  string
	doing string
	hint  string
	max   int
	calls int
}

// NewBudget returns a budget for calls of what, as the failure message
// names it ("NextLogits", "rng.Float32()"). It allows no call until For
// says how many.
func NewBudget(t testing.TB, what string) *Budget {
	return &Budget{t: t, what: what}
}

// For starts the count again, for one call of the code under test: doing
// is that call as the message shows it, max the calls it may make (what it
// can need, with room to spare, so that a slightly wasteful solution
// meets the test's own check of the count rather than this bound), and
// hint what to look at when it makes more, as a question or a sentence.
// It returns b, so a test can start a budget where it passes the fake.
func (b *Budget) For(doing string, max int, hint string) *Budget {
	b.doing, b.max, b.hint, b.calls = doing, max, hint, 0
	return b
}

// Spend counts one call. The call past the bound fails the test and stops
// it.
func (b *Budget) Spend() {
	b.calls++
	if b.calls > b.max {
		b.t.Helper()
		b.t.Fatal(b.message())
	}
}

// Calls is the number of calls since For, the one that went past the bound
// included.
func (b *Budget) Calls() int { return b.calls }

// message says what went past which bound: the call of the code under
// test, the fake's calls, the bound and the hint.
func (b *Budget) message() string {
	doing := b.doing
	if doing == "" {
		doing = "your code"
	}
	msg := doing + " called " + b.what + " " + times(b.calls) + ", and the test allows " + Count(b.max) + ": it stopped your code there"
	if b.hint != "" {
		msg += "\n" + b.hint
	}
	return msg
}

// times writes how many times: once, 2 times, 10,001 times.
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return Count(n) + " times"
}

// Count writes a count with a comma between groups of three digits, as
// failure messages show large numbers: 10,001.
func Count(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
