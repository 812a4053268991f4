package experiment

import (
	"math"
	"slices"
	"testing"
)

func TestRepeatedNGramRate(t *testing.T) {
	cases := []struct {
		ids  []int
		n    int
		want float64
	}{
		{[]int{1, 2, 3, 4, 5, 6, 7, 8}, 4, 0},                   // nothing repeats
		{[]int{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}, 4, 5.0 / 9}, // 9 4-grams, the first 4 new
		{[]int{1, 2, 3, 1, 2, 3, 1, 2}, 2, 4.0 / 7},             // 12 23 31 | 12 23 31 12
		{[]int{5, 5, 5, 5}, 1, 3.0 / 4},                         // every 1-gram after the first
		{[]int{1, 2, 3}, 4, 0},                                  // no 4-gram at all
		{[]int{1, 2, 1, 2}, 0, 0},                               // no 0-grams
	}
	for _, c := range cases {
		if got := RepeatedNGramRate(c.ids, c.n); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("RepeatedNGramRate(%v, %d) = %v; want %v", c.ids, c.n, got, c.want)
		}
	}
}

func TestRepetitionCurve(t *testing.T) {
	texts := [][]int{{1, 2, 1, 2, 1, 2}, {1, 2, 3, 4, 5, 6}}
	// Text 1: [1 2] has one 2-gram, new: 0; [1 2 1 2] → 12 21 12: 1/3;
	// all six → 12 21 12 21 12: 3/5. Text 2 never repeats.
	got := RepetitionCurve(texts, 2, []int{2, 4, 6, 10})
	want := []float64{0, 1.0 / 6, 3.0 / 10, 3.0 / 10} // 10: the whole texts
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("RepetitionCurve = %v; want %v", got, want)
			break
		}
	}
	if got := RepetitionCurve(nil, 2, []int{2, 4}); !slices.Equal(got, []float64{0, 0}) {
		t.Errorf("RepetitionCurve(no texts) = %v; want zeros", got)
	}
}

func TestEndsInLoop(t *testing.T) {
	count := make([]int, 40)
	for i := range count {
		count[i] = i + 1
	}
	cases := []struct {
		ids  []int
		tail int
		want bool
	}{
		{slices.Repeat([]int{7, 8, 9}, 30), 60, true}, // period 3
		{slices.Repeat(count, 2), 60, false},          // period 40 > 60/2
		{slices.Repeat(count, 2), 80, true},           // period 40 ≤ 80/2
		{[]int{1, 2, 3, 4, 5, 5, 5, 5}, 4, true},      // 5 5 5 5
		{[]int{1, 2, 3, 4, 5, 5, 5, 5}, 5, false},     // 4 5 5 5 5
		{[]int{1, 2, 1, 2}, 6, false},                 // shorter than the tail
	}
	for _, c := range cases {
		if got := EndsInLoop(c.ids, c.tail); got != c.want {
			t.Errorf("EndsInLoop(%v, %d) = %v; want %v", c.ids, c.tail, got, c.want)
		}
	}
	texts := [][]int{{1, 2, 3, 4, 5, 5, 5, 5}, {1, 2, 3, 4, 5, 6, 7, 8}, {9, 9, 9, 9}, {1}}
	if got := LoopShare(texts, 4); got != 0.5 {
		t.Errorf("LoopShare = %v; want 0.5 (2 of 4 texts end in a loop)", got)
	}
	if got := LoopShare(nil, 4); got != 0 {
		t.Errorf("LoopShare(no texts) = %v; want 0", got)
	}
}

func TestStretches(t *testing.T) {
	texts := [][]int{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {11, 12}}
	side := Stretches(texts, 3, 3)
	if want := [][]int{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}; !slices.EqualFunc(side, want, slices.Equal) {
		t.Errorf("Stretches(3, 3) = %v; want %v", side, want)
	}
	other := Stretches(texts, 3, 6)
	if want := [][]int{{1, 2, 3}, {7, 8, 9}}; !slices.EqualFunc(other, want, slices.Equal) {
		t.Errorf("Stretches(3, 6) = %v; want %v", other, want)
	}
	// A stretch cannot grow into the text after it.
	if s := append(side[0], 99); texts[0][3] != 4 || len(s) != 4 {
		t.Errorf("appending to a stretch changed its text: %v", texts[0])
	}
}
