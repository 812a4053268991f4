package notebook

import (
	"math"
	"strings"
	"testing"
)

func TestLiveLinesHTML(t *testing.T) {
	l := NewLiveLines("Loss while training", "step", "nats per token", "train", "validation")
	l.Add("1", 7.6, math.NaN())
	l.Add("2", 7.1, 7.3)
	l.Add("3", 6.5, math.Inf(1))
	l.Done() // outside a notebook: nothing to draw, must not block
	if l.Len() != 3 {
		t.Fatalf("Len = %d, want 3", l.Len())
	}
	html := l.HTML()
	for _, want := range []string{
		"Loss while training", `"step"`, `"nats per token"`, `"train"`, `"validation"`,
		"7.6", "7.1", "6.5", "7.3", `"-"`, `"connectNulls":true`,
		"tokenbytokenDrawChart(", // the shared loader, not a copy of its own
	} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %s", want)
		}
	}
	if strings.Contains(html, "NaN") || strings.Contains(html, "Inf") {
		t.Errorf("HTML holds a non-number:\n%s", html)
	}
	if n := strings.Count(html, "function tokenbytokenDrawChart"); n != 1 {
		t.Errorf("the loader is defined %d times, want once", n)
	}
}

func TestLiveLinesGrows(t *testing.T) {
	l := NewLiveLines("t", "x", "y", "a")
	before := l.HTML()
	if strings.Contains(before, "0.25") {
		t.Fatal("empty chart already holds a value")
	}
	l.Add("first", 0.25)
	if after := l.HTML(); !strings.Contains(after, "0.25") || !strings.Contains(after, `"first"`) {
		t.Errorf("chart after Add lacks the new point:\n%s", after)
	}
	// Chart returns a snapshot: later points do not change it.
	c := l.Chart()
	l.Add("second", 0.5)
	if got := HTML(c); strings.Contains(got, `"second"`) {
		t.Error("an earlier Chart changed after Add")
	}
}

func TestLiveLinesWrongCount(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Add with the wrong number of values did not panic")
		}
	}()
	NewLiveLines("t", "x", "y", "a", "b").Add("1", 1)
}
