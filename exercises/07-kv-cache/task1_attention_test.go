package kvcache

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// tol is how far a result may be from the float64 reference: every number
// in these tests is of order 1, and float32 arithmetic, in any order, stays
// well within it.
const tol = 1e-5

// reference is attention computed in float64 straight from the
// definition: for every query head h, softmax over t of
// q_h · k_t,g / √hs, then the weighted sum of v_t,g, where
// g = h / (nHeads/nKVHeads) is the key/value head h reads.
func reference(q []float32, keys, values [][]float32, nHeads, nKVHeads int) []float64 {
	hs := len(q) / nHeads
	group := nHeads / nKVHeads
	out := make([]float64, len(q))
	for h := range nHeads {
		g := h / group
		scores := make([]float64, len(keys))
		best := math.Inf(-1)
		for t, k := range keys {
			var dot float64
			for i := range hs {
				dot += float64(q[h*hs+i]) * float64(k[g*hs+i])
			}
			scores[t] = dot / math.Sqrt(float64(hs))
			best = max(best, scores[t])
		}
		var sum float64
		for t := range scores {
			scores[t] = math.Exp(scores[t] - best)
			sum += scores[t]
		}
		for t, v := range values {
			for i := range hs {
				out[h*hs+i] += scores[t] / sum * float64(v[g*hs+i])
			}
		}
	}
	return out
}

// randVecs returns n vectors of d numbers drawn from a standard normal.
func randVecs(r *rand.Rand, n, d int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		out[i] = make([]float32, d)
		for j := range out[i] {
			out[i][j] = float32(r.NormFloat64())
		}
	}
	return out
}

// cloneAll deep-copies a list of vectors.
func cloneAll(vs [][]float32) [][]float32 {
	out := make([][]float32, len(vs))
	for i, v := range vs {
		out[i] = slices.Clone(v)
	}
	return out
}

// equalAll reports whether two lists of vectors are identical.
func equalAll(a, b [][]float32) bool {
	return slices.EqualFunc(a, b, func(x, y []float32) bool { return slices.Equal(x, y) })
}

// mismatch returns the first index where got is farther than tolerance
// from want, or -1; a length mismatch is index len(got).
func mismatch(got []float32, want []float64, tolerance float64) int {
	if len(got) != len(want) {
		return len(got)
	}
	for i := range want {
		if !(math.Abs(float64(got[i])-want[i]) <= tolerance) {
			return i
		}
	}
	return -1
}

// attendMismatch is a failure message for an attention output got that
// should be want (as mismatch decides): both, and where they differ.
func attendMismatch(call string, got []float32, want []float64, tolerance float64) string {
	if m := check.Mismatch(call, got, want, tolerance); m != "" {
		return m
	}
	return fmt.Sprintf("%s = %s; want %s", call, check.Vec(got), check.Vec(want)) // infinities Diff calls equal
}

// TestTask1_HandComputed: attention small enough to work out by hand.
// Scores 0 and ln 3 give the weights 1/4 and 3/4; with a head of 4
// numbers the dot product 2·ln 3 is scaled by 1/√4 to ln 3 again; equal
// scores give the plain average of the values.
//
//grade:task 1 points 2
func TestTask1_HandComputed(t *testing.T) {
	defer check.Recover(t)
	ln3 := float32(math.Log(3))
	a := ln3 / 2
	cases := []struct {
		q            []float32
		keys, values [][]float32
		want         []float64
	}{
		{[]float32{1}, [][]float32{{0}, {ln3}}, [][]float32{{4}, {8}}, []float64{7}},
		{[]float32{1, 1, 1, 1}, [][]float32{{0, 0, 0, 0}, {a, a, a, a}}, [][]float32{{4, 0, 8, 1}, {8, 4, 0, 1}}, []float64{7, 3, 2, 1}},
		{[]float32{2, 0}, [][]float32{{1, 5}, {1, -5}, {1, 0}}, [][]float32{{3, 0}, {0, 3}, {3, 3}}, []float64{2, 2}},
	}
	for _, c := range cases {
		got := Attend(c.q, c.keys, c.values)
		if i := mismatch(got, c.want, 1e-5); i >= 0 {
			t.Error(attendMismatch(fmt.Sprintf("Attend(q=%v, keys=%v, values=%v)", c.q, c.keys, c.values), got, c.want, 1e-5))
		}
	}
}

// TestTask1_Stable: a single position gets all the weight whatever the
// query; scores of ±1000 give the value of the best position, not NaN.
//
//grade:task 1 points 1
func TestTask1_Stable(t *testing.T) {
	defer check.Recover(t)
	v := []float32{1.5, -2, 0.25}
	for _, q := range [][]float32{{0, 0, 0}, {100, -3, 7}, {-1e3, 1e3, 0}} {
		got := Attend(q, [][]float32{{1, 2, 3}}, [][]float32{v})
		if i := mismatch(got, []float64{1.5, -2, 0.25}, 1e-6); i >= 0 {
			t.Errorf("Attend(q=%v, one key [1 2 3], one value %v) = %s; want the value itself", q, v, check.Vec(got))
		}
	}
	keys := [][]float32{{1}, {-1}, {0.5}}
	values := [][]float32{{10, 0}, {0, 10}, {5, 5}}
	for _, c := range []struct {
		q    float32
		want []float64
	}{{1000, []float64{10, 0}}, {-1000, []float64{0, 10}}} {
		got := Attend([]float32{c.q}, keys, values)
		if i := mismatch(got, c.want, 1e-6); i >= 0 {
			t.Errorf("Attend(q=[%g], keys=%v, values=%v) = %s; want %v (scores of ±1000 need the largest subtracted before exp)", c.q, keys, values, check.Vec(got), c.want)
		}
	}
}

// TestTask1_Random: random queries, keys and values from a seeded source,
// for several head sizes and context lengths, against the float64
// reference (within 1e-5). The inputs stay as they were, and shapes that
// do not fit give nil.
//
//grade:task 1 points 1
func TestTask1_Random(t *testing.T) {
	defer check.Recover(t)
	r := rand.New(rand.NewPCG(7, 1))
	for _, hs := range []int{1, 4, 16, 64} {
		for _, n := range []int{1, 2, 7, 50} {
			q := randVecs(r, 1, hs)[0]
			keys, values := randVecs(r, n, hs), randVecs(r, n, hs)
			q0, k0, v0 := slices.Clone(q), cloneAll(keys), cloneAll(values)
			got := Attend(q, keys, values)
			want := reference(q0, k0, v0, 1, 1)
			if i := mismatch(got, want, tol); i >= 0 {
				if i == len(got) {
					t.Fatalf("Attend(q of %d, %d keys and values of %d) returned %d numbers; want %d", hs, n, hs, len(got), hs)
				}
				t.Fatalf("Attend(q of %d, %d random keys and values): output %d = %.6g; want %.6g", hs, n, i, got[i], want[i])
			}
			if !slices.Equal(q, q0) || !equalAll(keys, k0) || !equalAll(values, v0) {
				t.Fatalf("Attend changed its inputs (head size %d, %d positions)", hs, n)
			}
		}
	}
	q, kv := []float32{1, 2}, [][]float32{{1, 2}, {3, 4}}
	bad := []struct {
		name         string
		q            []float32
		keys, values [][]float32
	}{
		{"no keys", q, nil, nil},
		{"empty query", nil, kv, kv},
		{"2 keys, 1 value", q, kv, kv[:1]},
		{"a key of 3 numbers for a query of 2", q, [][]float32{{1, 2}, {3, 4, 5}}, kv},
		{"values of different lengths", q, kv, [][]float32{{1, 2}, {3}}},
	}
	for _, b := range bad {
		if got := Attend(b.q, b.keys, b.values); got != nil {
			t.Errorf("Attend with %s = %s; want nil", b.name, check.Vec(got))
		}
	}
}

// TestTask2_HandGQA: 4 query heads share 2 key/value heads: heads 0 and 1
// read key/value head 0, heads 2 and 3 read head 1 (not heads 0, 2 → 0 and
// 1, 3 → 1). With every key 0 the weights are equal and each head outputs
// the average of its key/value head's values. Then 2 query heads share one
// key/value head but ask different questions: scores 0 and ln 3 for head 0,
// equal scores for head 1.
//
//grade:task 2 points 2
func TestTask2_HandGQA(t *testing.T) {
	defer check.Recover(t)
	q := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	keys := [][]float32{{0, 0, 0, 0}, {0, 0, 0, 0}}
	values := [][]float32{{1, 1, 10, 10}, {3, 3, 30, 30}}
	want := []float64{2, 2, 2, 2, 20, 20, 20, 20}
	got := AttendHeads(q, keys, values, 4, 2)
	if i := mismatch(got, want, 1e-5); i >= 0 {
		t.Errorf("%s (query head h reads KV head h/2)", attendMismatch(fmt.Sprintf("AttendHeads(q=%v, keys=%v, values=%v, 4 heads, 2 KV heads)", q, keys, values), got, want, 1e-5))
	}
	ln3 := float32(math.Log(3))
	q2, keys2, values2 := []float32{1, 0}, [][]float32{{0}, {ln3}}, [][]float32{{4}, {8}}
	want2 := []float64{7, 6}
	got2 := AttendHeads(q2, keys2, values2, 2, 1)
	if i := mismatch(got2, want2, 1e-5); i >= 0 {
		t.Error(attendMismatch(fmt.Sprintf("AttendHeads(q=%v, keys=%v, values=%v, 2 heads, 1 KV head)", q2, keys2, values2), got2, want2, 1e-5))
	}
}

// TestTask2_Random: multi-head (as many KV heads as query heads),
// grouped-query and multi-query attention on random inputs, against the
// float64 reference (within 1e-5).
//
//grade:task 2 points 2
func TestTask2_Random(t *testing.T) {
	defer check.Recover(t)
	r := rand.New(rand.NewPCG(7, 2))
	const hs = 8
	for _, h := range []struct{ heads, kv int }{{1, 1}, {4, 4}, {6, 2}, {8, 2}, {4, 1}, {6, 3}} {
		for _, n := range []int{1, 5, 33} {
			q := randVecs(r, 1, h.heads*hs)[0]
			keys, values := randVecs(r, n, h.kv*hs), randVecs(r, n, h.kv*hs)
			want := reference(q, keys, values, h.heads, h.kv)
			got := AttendHeads(q, keys, values, h.heads, h.kv)
			if i := mismatch(got, want, tol); i >= 0 {
				if i == len(got) {
					t.Fatalf("AttendHeads(%d heads, %d KV heads of %d, %d positions) returned %d numbers; want %d", h.heads, h.kv, hs, n, len(got), len(want))
				}
				t.Fatalf("AttendHeads(%d heads, %d KV heads of %d, %d random positions): output %d (head %d) = %.6g; want %.6g", h.heads, h.kv, hs, n, i, i/hs, got[i], want[i])
			}
		}
	}
}

// TestTask2_BadShapes: shapes that do not fit give nil; one that fits
// does not.
//
//grade:task 2 points 1
func TestTask2_BadShapes(t *testing.T) {
	defer check.Recover(t)
	q := []float32{1, 2, 3, 4, 5, 6} // 3 heads of 2, or 2 heads of 3, or 6 of 1
	kv := [][]float32{{1, 2}, {3, 4}}
	if got := AttendHeads(q, kv, kv, 3, 1); len(got) != 6 {
		t.Fatalf("AttendHeads(q of 6, 2 positions of 2, 3 heads, 1 KV head) = %s; want 6 numbers", check.Vec(got))
	}
	bad := []struct {
		name         string
		q            []float32
		keys, values [][]float32
		heads, kv    int
	}{
		{"0 heads", q, kv, kv, 0, 1},
		{"0 KV heads", q, kv, kv, 3, 0},
		{"4 KV heads for 6 query heads", q, [][]float32{{1, 2, 3, 4}}, [][]float32{{1, 2, 3, 4}}, 6, 4},
		{"4 heads for a query of 6", q, kv, kv, 4, 1},
		{"no keys", q, nil, nil, 3, 1},
		{"2 keys, 1 value", q, kv, kv[:1], 3, 1},
		{"a key of 3 numbers, not 1 head × 2", q, [][]float32{{1, 2}, {3, 4, 5}}, kv, 3, 1},
		{"a value of 4 numbers, not 1 head × 2", q, kv, [][]float32{{1, 2}, {3, 4, 5, 6}}, 3, 1},
	}
	for _, b := range bad {
		if got := AttendHeads(b.q, b.keys, b.values, b.heads, b.kv); got != nil {
			t.Errorf("AttendHeads with %s = %s; want nil", b.name, check.Vec(got))
		}
	}
}
