package greedy

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestTask4_HandComputed: the rate on sequences small enough to count by
// hand (to 1e-12).
//
//grade:task 4 points 2
func TestTask4_HandComputed(t *testing.T) {
	defer check.Recover(t)
	loop := []int{1, 2, 3, 1, 2, 3, 1, 2}
	for _, c := range []struct {
		ids  []int
		n    int
		want float64
		why  string
	}{
		{loop, 2, 4.0 / 7, "2-grams 12 23 31 12 23 31 12: the last 4 were seen before"},
		{loop, 3, 3.0 / 6, "3-grams 123 231 312 123 231 312: the last 3 were seen before"},
		{loop, 1, 5.0 / 8, "the first 3 tokens are new, the other 5 repeat"},
		{loop, 8, 0, "a single 8-gram cannot have been seen before"},
		{[]int{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}, 4, 5.0 / 9, "the notebook's example: the first 4 of the 9 4-grams are new"},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8}, 4, 0, "nothing repeats"},
		{[]int{7, 7, 7, 7}, 2, 2.0 / 3, "77 77 77: an n-gram may overlap its earlier occurrence"},
	} {
		if got := RepeatedNGramRate(c.ids, c.n); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("RepeatedNGramRate(%v, %d) = %.4g; want %.4g (%s)", c.ids, c.n, got, c.want, c.why)
		}
	}
}

// TestTask4_ShortSequences: with no n-gram at all (fewer than n tokens, or
// n < 1) the rate is 0; one more token makes it defined again.
//
//grade:task 4 points 1
func TestTask4_ShortSequences(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		ids  []int
		n    int
		want float64
	}{
		{[]int{1, 1, 1}, 4, 0},
		{[]int{1, 1, 1, 1}, 4, 0},
		{[]int{1, 1, 1, 1, 1}, 4, 0.5},
		{nil, 1, 0},
		{[]int{5, 5}, 1, 0.5},
		{[]int{5, 5}, 0, 0},
		{[]int{5, 5}, -1, 0},
	} {
		if got := RepeatedNGramRate(c.ids, c.n); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("RepeatedNGramRate(%v, %d) = %.4g; want %.4g", c.ids, c.n, got, c.want)
		}
	}
}

// TestTask4_TokensNotText: n-grams are compared token by token: [1 23] and
// [12 3] are different 2-grams, and large ids work.
//
//grade:task 4 points 1
func TestTask4_TokensNotText(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		ids  []int
		n    int
		want float64
	}{
		{[]int{1, 23, 12, 3}, 2, 0},
		{[]int{1, 23, 12, 3, 1, 23}, 2, 1.0 / 5},
		{[]int{11, 1, 1, 11}, 2, 0},
		{[]int{31999, 7, 31999, 7, 31999}, 2, 2.0 / 4},
	} {
		if got := RepeatedNGramRate(c.ids, c.n); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("RepeatedNGramRate(%v, %d) = %.4g; want %.4g", c.ids, c.n, got, c.want)
		}
	}
}

// TestTask4_MatchesCounting: on 300 random sequences the rate equals a
// direct count (compare every n-gram with every earlier one), and the
// sequence is left unchanged.
//
//grade:task 4 points 1
func TestTask4_MatchesCounting(t *testing.T) {
	defer check.Recover(t)
	r := rand.New(rand.NewPCG(5, 6))
	wrong := 0
	for range 300 {
		ids := make([]int, 1+r.IntN(40))
		for i := range ids {
			ids[i] = r.IntN(4)
		}
		n := 1 + r.IntN(5)
		want := 0.0
		if total := len(ids) - n + 1; total > 0 {
			repeated := 0
			for i := range total {
				for j := range i {
					if slices.Equal(ids[j:j+n], ids[i:i+n]) {
						repeated++
						break
					}
				}
			}
			want = float64(repeated) / float64(total)
		}
		before := slices.Clone(ids)
		got := RepeatedNGramRate(ids, n)
		if math.Abs(got-want) > 1e-12 || !slices.Equal(ids, before) {
			t.Errorf("RepeatedNGramRate(%v, %d) = %.4g; want %.4g (and the sequence unchanged)", before, n, got, want)
			if wrong++; wrong == 3 {
				t.FailNow()
			}
		}
	}
}
