package check

import (
	"fmt"
	"strings"
	"testing"
)

// fatalRecorder stands in for a *testing.T and keeps what Fatal reports;
// its Fatal panics with stopped, as FailNow would end the goroutine.
type fatalRecorder struct {
	testing.TB
	fatal string
}

type stopped struct{}

func (r *fatalRecorder) Helper() {}
func (r *fatalRecorder) Fatal(args ...any) {
	r.fatal = fmt.Sprint(args...)
	panic(stopped{})
}

// spend calls b.Spend n times and reports how many returned before the
// budget stopped them.
func spend(b *Budget, n int) (returned int) {
	defer func() {
		if r := recover(); r != nil && r != (stopped{}) {
			panic(r)
		}
	}()
	for range n {
		b.Spend()
		returned++
	}
	return returned
}

func TestBudget(t *testing.T) {
	r := &fatalRecorder{}
	b := NewBudget(r, "NextLogits").For("Greedy(model, [0], 12)", 12, "does your loop stop after maxNew tokens?")
	if got := spend(b, 12); got != 12 || r.fatal != "" || b.Calls() != 12 {
		t.Fatalf("12 calls within a budget of 12: %d returned, %d counted, failure %q; want all 12 and no failure", got, b.Calls(), r.fatal)
	}
	if got := spend(b, 1); got != 0 || b.Calls() != 13 {
		t.Fatalf("the 13th call of a budget of 12 returned (%d calls counted); want it to stop the test", b.Calls())
	}
	want := "Greedy(model, [0], 12) called NextLogits 13 times, and the test allows 12: it stopped your code there\ndoes your loop stop after maxNew tokens?"
	if r.fatal != want {
		t.Errorf("the failure is\n%s\nwant\n%s", r.fatal, want)
	}

	// For starts again from zero.
	r.fatal = ""
	b.For("Search(model)", 2, "")
	if got := spend(b, 3); got != 2 || !strings.HasPrefix(r.fatal, "Search(model) called NextLogits 3 times, and the test allows 2") || strings.Contains(r.fatal, "\n") {
		t.Errorf("a budget of 2 after For: %d calls returned, failure %q; want 2 returned and a one-line failure naming Search(model)", got, r.fatal)
	}

	// A budget nobody set allows nothing.
	r.fatal = ""
	if got := spend(NewBudget(r, "Float32"), 1); got != 0 || !strings.HasPrefix(r.fatal, "your code called Float32 once, and the test allows 0") {
		t.Errorf("a budget without For: %d calls returned, failure %q; want the first call stopped", got, r.fatal)
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 10001: "10,001", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q; want %q", n, got, want)
		}
	}
}
