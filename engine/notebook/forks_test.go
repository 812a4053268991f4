package notebook

import (
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/experiment"
	"slices"
	"strings"
	"testing"
)

func TestStepsText(t *testing.T) {
	steps := []decoding.Step{{ID: 4, Text: "a"}, {ID: 5, Text: "b"}}
	if got := StepsText(steps); got != "ab" {
		t.Errorf("StepsText = %q, want ab", got)
	}
}

func TestForkHTMLNamesTheFork(t *testing.T) {
	f := experiment.Fork{Prompt: []int{0}, Trunk: []int{1, 2, 3}, Branch: []int{1, 2, 4, 5}, Step: 1, At: 1, Parted: 2, TrunkProb: 0.5, BranchProb: 0.25}
	h := ForkHTML(f, func(_, id int) string { return []string{"<s>", "a", "b", "c", "d", "e"}[id] }, "seed 1", "seed 2")
	for _, want := range []string{"seed 1", "ab", "de", "at step 1", "at step 2", "probability 0.500", "probability 0.250", "1 and 2 tokens of their own"} {
		if !strings.Contains(h, want) {
			t.Errorf("ForkHTML lacks %q: %s", want, h)
		}
	}
}

// TestForkHTMLOfOneText: the two forks experiment.ForkSample makes that
// are one text, a branch that drew the trunk's very tokens and a trunk that
// ended before the step, are said to be one.
func TestForkHTMLOfOneText(t *testing.T) {
	same := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	f := experiment.Fork{Prompt: []int{0}, Trunk: same, Branch: slices.Clone(same), Parted: 12}
	if h := ForkHTML(f, func(_, id int) string { return string(rune('a' + id%26)) }, "trunk", "branch"); !strings.Contains(h, "draws the very same 12 tokens") {
		t.Errorf("ForkHTML of one text: %s", h)
	}
	f = experiment.Fork{Prompt: []int{0}, Trunk: []int{3}, Branch: []int{3}, Step: 4, At: 1, Parted: 1}
	if h := ForkHTML(f, func(_, id int) string { return "x" }, "trunk", "branch"); !strings.Contains(h, "The trunk has 1 tokens, none after step 4") {
		t.Errorf("ForkHTML of a trunk that ended before the step: %s", h)
	}
}
