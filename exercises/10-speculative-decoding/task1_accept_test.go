package speculative

import (
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/exercises/internal/check"
	"math"
	"slices"
	"testing"
)

// scripted is an RNG that returns chosen numbers in order, and counts the
// calls. Past the end of its script it returns 0.5 (the tests check the
// number of calls, so running past the script shows up as a failure), and
// a few calls past it the budget stops code that keeps drawing.
type scripted struct {
	values []float32
	calls  int
	budget *check.Budget
}

func (s *scripted) Float32() float32 {
	s.budget.Spend()
	s.calls++
	if s.calls > len(s.values) {
		return 0.5
	}
	return s.values[s.calls-1]
}

// drawHint says how many numbers each function takes, for a budget's
// message.
const drawHint = "Draw takes one number, Accept one or two (the second for the replacement), Verify one per proposal it checks and one for the replacement or the bonus token: is a loop drawing again and again?"

// script returns an RNG for one call of the code under test, doing (as the
// failure messages write it), with the numbers it hands out.
func script(t *testing.T, doing string, values ...float32) *scripted {
	return &scripted{values: values, budget: check.NewBudget(t, "rng.Float32()").For(doing, len(values)+20, drawHint)}
}

// boundedRNG is an RNG, such as *decoding.RNG, whose calls a budget bounds.
type boundedRNG struct {
	RNG
	budget *check.Budget
}

func (r boundedRNG) Float32() float32 {
	r.budget.Spend()
	return r.RNG.Float32()
}

func nearSlice(got, want []float64, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.IsNaN(got[i]) || math.Abs(got[i]-want[i]) > tol {
			return false
		}
	}
	return true
}

// TestTask1_Draw: the token whose stretch of [0, 1) holds u, with exactly
// one number from the RNG; probability-0 tokens are never drawn; rounding
// that leaves the total under u gives the last positive token.
//
//grade:task 1 points 1
func TestTask1_Draw(t *testing.T) {
	defer check.Recover(t)
	cases := []struct {
		p    []float64
		u    float32
		want int
	}{
		{[]float64{0.25, 0.5, 0.25}, 0.1, 0},
		{[]float64{0.25, 0.5, 0.25}, 0.25, 1},
		{[]float64{0.25, 0.5, 0.25}, 0.75, 2},
		{[]float64{0, 0.5, 0.5}, 0, 1},
		{[]float64{0.2, 0, 0.8}, 0.2, 2},
		{[]float64{0.3, 0.3, 0.3999999, 0}, 0.99999994, 2},
	}
	for _, c := range cases {
		rng := script(t, fmt.Sprintf("Draw(%s) with u = %v", check.Vec(c.p), c.u), c.u)
		if got := Draw(c.p, rng); got != c.want || rng.calls != 1 {
			t.Errorf("Draw(%s) with u = %v = %d after %d calls of Float32; want %d after exactly 1", check.Vec(c.p), c.u, got, rng.calls, c.want)
		}
	}
}

// TestTask1_Residual: normalise(max(0, p − q)), computed by hand; the inputs
// are left unchanged.
//
//grade:task 1 points 2
func TestTask1_Residual(t *testing.T) {
	defer check.Recover(t)
	cases := []struct{ p, q, want []float64 }{
		// max(0, p − q) = [0 0.2 0.1], whose total is 0.3
		{[]float64{0.3, 0.5, 0.2}, []float64{0.6, 0.3, 0.1}, []float64{0, 2.0 / 3, 1.0 / 3}},
		// [0 0 0.3]: only token 2 is under-proposed
		{[]float64{0.2, 0.2, 0.6}, []float64{0.2, 0.5, 0.3}, []float64{0, 0, 1}},
		// [0 0 0.1 0.3], total 0.4
		{[]float64{0.1, 0.2, 0.3, 0.4}, []float64{0.4, 0.3, 0.2, 0.1}, []float64{0, 0, 0.25, 0.75}},
		// the draft never proposes token 1: all its mass is residual
		{[]float64{0.5, 0.5}, []float64{1, 0}, []float64{0, 1}},
	}
	for _, c := range cases {
		p, q := slices.Clone(c.p), slices.Clone(c.q)
		got := Residual(p, q)
		if !nearSlice(got, c.want, 1e-9) {
			t.Errorf("Residual(p = %s, q = %s) = %s; want %s", check.Vec(c.p), check.Vec(c.q), check.Vec(got), check.Vec(c.want))
		}
		if !slices.Equal(p, c.p) || !slices.Equal(q, c.q) {
			t.Errorf("Residual(p = %s, q = %s) changed its inputs to p = %s, q = %s; return a new slice", check.Vec(c.p), check.Vec(c.q), check.Vec(p), check.Vec(q))
		}
	}
	if got := Residual([]float64{0.5, 0.5}, []float64{1}); got != nil {
		t.Errorf("Residual of a 2-token p and a 1-token q = %s; want nil", check.Vec(got))
	}
}

// TestTask1_ResidualEqual: when p == q the residual max(0, p − q) is zero
// everywhere and cannot be normalised; Residual returns a copy of p, not
// NaN.
//
//grade:task 1 points 1
func TestTask1_ResidualEqual(t *testing.T) {
	defer check.Recover(t)
	for _, p := range [][]float64{{0.1, 0.2, 0.3, 0.4}, {1, 0}, {0.25, 0.25, 0.25, 0.25}} {
		q := slices.Clone(p)
		got := Residual(p, q)
		if !nearSlice(got, p, 0) {
			t.Errorf("Residual(p, q) with p = q = %s = %s; want a copy of p (max(0, p − q) is all zero, 0/0 cannot be normalised)", check.Vec(p), check.Vec(got))
			continue
		}
		got[0] = 42
		if p[0] == 42 {
			t.Errorf("Residual(p, q) with p = q returned p itself; return a copy, so that changing it leaves p alone")
		}
	}
}

// TestTask2_AcceptOrReject: one proposal, with a scripted RNG: kept when
// u·q[x] < p[x] after one call; otherwise replaced by a draw from the
// residual, with a second call.
//
//grade:task 2 points 2
func TestTask2_AcceptOrReject(t *testing.T) {
	defer check.Recover(t)
	p := []float64{0.3, 0.5, 0.2}
	q := []float64{0.6, 0.3, 0.1}
	cases := []struct {
		x        int
		p, q     []float64
		us       []float32
		token    int
		accepted bool
		why      string
	}{
		{0, p, q, []float32{0.25}, 0, true, "p/q = 0.5 and u = 0.25 < 0.5"},
		{0, p, q, []float32{0.75, 0.7}, 2, false, "u = 0.75 ≥ 0.5; the residual is [0 2/3 1/3] and 0.7 falls in token 2"},
		{0, p, q, []float32{0.75, 0.5}, 1, false, "u = 0.75 ≥ 0.5; the residual is [0 2/3 1/3] and 0.5 falls in token 1"},
		{1, p, q, []float32{0.99}, 1, true, "p/q = 5/3 ≥ 1: always kept"},
		{2, p, q, []float32{0.999}, 2, true, "p/q = 2 ≥ 1: always kept"},
		{0, []float64{0, 0.5, 0.5}, []float64{0.5, 0.25, 0.25}, []float32{0, 0.6}, 2, false, "p[x] = 0: rejected even with u = 0; the residual is [0 0.5 0.5]"},
		{1, p, []float64{1, 0, 0}, []float32{0.9}, 1, true, "q[x] = 0 and p[x] > 0: kept (u·0 < 0.5)"},
	}
	for _, c := range cases {
		rng := script(t, fmt.Sprintf("Accept(x = %d, p = %s, q = %s) with u = %v", c.x, check.Vec(c.p), check.Vec(c.q), c.us), c.us...)
		token, accepted := Accept(c.x, c.p, c.q, rng)
		if token != c.token || accepted != c.accepted || rng.calls != len(c.us) {
			t.Errorf("Accept(x = %d, p = %s, q = %s) with u = %v = (%d, %v) after %d calls of Float32; want (%d, %v) after %d: %s",
				c.x, check.Vec(c.p), check.Vec(c.q), c.us, token, accepted, rng.calls, c.token, c.accepted, len(c.us), c.why)
		}
	}
}

// TestTask2_AcceptanceProbability: over a grid of 1000 evenly spaced u, a
// proposal is kept for exactly the share min(1, p[x]/q[x]) of them, and a
// replacement is never the rejected token itself.
//
//grade:task 2 points 1
func TestTask2_AcceptanceProbability(t *testing.T) {
	defer check.Recover(t)
	cases := []struct {
		x    int
		p, q []float64
		want int // accepted out of 1000
	}{
		{0, []float64{0.3, 0.5, 0.2}, []float64{0.6, 0.3, 0.1}, 500},
		{0, []float64{0.1, 0.2, 0.3, 0.4}, []float64{0.4, 0.3, 0.2, 0.1}, 250},
		{1, []float64{0.1, 0.2, 0.3, 0.4}, []float64{0.4, 0.3, 0.2, 0.1}, 667},
		{3, []float64{0.1, 0.2, 0.3, 0.4}, []float64{0.4, 0.3, 0.2, 0.1}, 1000},
	}
	for _, c := range cases {
		kept := 0
		for k := range 1000 {
			u := float32(k)/1000 + 0.0005
			rng := script(t, fmt.Sprintf("Accept(x = %d, p = %s, q = %s) with u = %v", c.x, check.Vec(c.p), check.Vec(c.q), u), u, 0.5)
			token, accepted := Accept(c.x, c.p, c.q, rng)
			switch {
			case accepted:
				kept++
			case token == c.x:
				t.Fatalf("Accept(x = %d, p = %s, q = %s) with u = %v rejected x and replaced it by x itself; the residual gives x probability 0",
					c.x, check.Vec(c.p), check.Vec(c.q), u)
			}
		}
		if kept != c.want {
			t.Errorf("Accept(x = %d, p = %s, q = %s) kept x for %d of 1000 evenly spaced u; want %d, the u below min(1, %.4g/%.4g)",
				c.x, check.Vec(c.p), check.Vec(c.q), kept, c.want, c.p[c.x], c.q[c.x])
		}
	}
}

// TestTask3_Round: whole rounds with a scripted RNG: all accepted plus the
// bonus token, a rejection at the first or the second proposal, and a
// round without proposals.
//
//grade:task 3 points 2
func TestTask3_Round(t *testing.T) {
	defer check.Recover(t)
	q1, q2 := []float64{0.6, 0.3, 0.1}, []float64{0.2, 0.5, 0.3}
	p1, p2, p3 := []float64{0.3, 0.5, 0.2}, []float64{0.2, 0.2, 0.6}, []float64{0.1, 0.1, 0.8}
	cases := []struct {
		drafts   []int
		qs, ps   [][]float64
		us       []float32
		tokens   []int
		accepted int
		why      string
	}{
		{[]int{0, 1}, [][]float64{q1, q2}, [][]float64{p1, p2, p3}, []float32{0.25, 0.1, 0.5}, []int{0, 1, 2}, 2,
			"0 kept (0.25 < 0.3/0.6), 1 kept (0.1 < 0.2/0.5), bonus from p3 with u = 0.5"},
		{[]int{0, 1}, [][]float64{q1, q2}, [][]float64{p1, p2, p3}, []float32{0.75, 0.7}, []int{2}, 0,
			"0 rejected (0.75 ≥ 0.5), replaced from [0 2/3 1/3] with u = 0.7; proposal 1 is never checked"},
		{[]int{0, 1}, [][]float64{q1, q2}, [][]float64{p1, p2, p3}, []float32{0.25, 0.9, 0.1}, []int{0, 2}, 1,
			"0 kept, 1 rejected (0.9 ≥ 0.4), replaced from [0 0 1]"},
		{[]int{1}, [][]float64{q1}, [][]float64{p1, p2}, []float32{0.99, 0.3}, []int{1, 1}, 1,
			"1 kept (p/q = 5/3 ≥ 1), bonus from p2 with u = 0.3"},
		{nil, nil, [][]float64{p1}, []float32{0.9}, []int{2}, 0,
			"no proposals: only the bonus token, from p1"},
	}
	for _, c := range cases {
		rng := script(t, fmt.Sprintf("Verify(drafts %v) with u = %v", c.drafts, c.us), c.us...)
		tokens, accepted := Verify(c.drafts, c.qs, c.ps, rng)
		if !slices.Equal(tokens, c.tokens) || accepted != c.accepted || rng.calls != len(c.us) {
			t.Errorf("Verify(drafts %v) with u = %v = (%s, %d) after %d calls of Float32; want (%v, %d) after %d: %s",
				c.drafts, c.us, check.Vec(tokens), accepted, rng.calls, c.tokens, c.accepted, len(c.us), c.why)
		}
	}
	rng := script(t, "Verify with 2 proposals and only 2 target distributions", 0.1, 0.1, 0.1)
	if tokens, accepted := Verify([]int{0, 1}, [][]float64{q1, q2}, [][]float64{p1, p2}, rng); tokens != nil || accepted != 0 {
		t.Errorf("Verify with 2 proposals and only 2 target distributions = (%s, %d); want (nil, 0): the target gives γ+1", check.Vec(tokens), accepted)
	}
}

// roundStats runs n rounds of one proposal each: x is drawn from q, then
// round decides, and the first token is counted. It returns the share of
// each token and the share of accepted proposals. A round takes three
// numbers at most (the proposal, the check, the replacement or the bonus):
// budget stops rounds that take far more.
func roundStats(budget *check.Budget, n int, seed uint64, p, q []float64, round func(x int, rng RNG) (first int, accepted bool, ok bool)) (shares []float64, acceptRate float64, ok bool) {
	budget.For(fmt.Sprintf("Verify([x], [q], [p p], rng), %s rounds of one proposal with decoding.NewRNG(%d),", check.Count(n), seed), 10*n, drawHint)
	rng := boundedRNG{decoding.NewRNG(seed), budget}
	counts := make([]int, len(p))
	kept := 0
	for range n {
		// the draft's proposal, by the inverse of q's cumulative sum
		u, x := float64(rng.Float32()), len(q)-1
		for i, sum := 0, 0.0; i < len(q); i++ {
			if sum += q[i]; u < sum {
				x = i
				break
			}
		}
		first, accepted, valid := round(x, rng)
		if !valid {
			return nil, 0, false
		}
		counts[first]++
		if accepted {
			kept++
		}
	}
	shares = make([]float64, len(p))
	for i, c := range counts {
		shares[i] = float64(c) / float64(n)
	}
	return shares, float64(kept) / float64(n), true
}

// TestTask3_MatchesTarget: the statistical test. On 4 tokens where the
// draft's q = [0.5 0.3 0.15 0.05] and the target's p = [0.1 0.2 0.3 0.4]
// differ a lot, the first token of a round, over n = 200,000 rounds seeded
// with decoding.NewRNG, follows p, not q; and the share of accepted proposals
// is Σ min(p, q) = 0.5.
//
// The false-failure rate: each of the 5 shares checked (4 tokens and the
// acceptance rate) is a mean of n independent 0/1 outcomes, so by
// Hoeffding's inequality it strays from its expectation by ε or more with
// probability at most 2·exp(−2nε²). With ε = 0.0066 and n = 200,000 that
// is 2·exp(−17.4) < 6·10⁻⁸, and for all 5 together less than 3·10⁻⁷: a
// correct implementation fails this test less than once in 10⁶ seeds. Two
// wrong rules are far outside: always accepting gives q (off by up to
// 0.4), and replacing a rejection by a draw from p instead of the residual
// gives [0.15 0.3 0.3 0.25] (off by up to 0.15). The test checks that it
// does catch both.
//
//grade:task 3 points 3
func TestTask3_MatchesTarget(t *testing.T) {
	defer check.Recover(t)
	const (
		n   = 200_000
		eps = 0.0066
	)
	p := []float64{0.1, 0.2, 0.3, 0.4}
	q := []float64{0.5, 0.3, 0.15, 0.05}
	const wantRate = 0.5 // Σ min(p, q) = 0.1 + 0.2 + 0.15 + 0.05
	// far reports how the shares stray from p and the rate from wantRate.
	far := func(shares []float64, rate float64) string {
		var msg string
		for i := range p {
			if math.Abs(shares[i]-p[i]) > eps {
				msg += fmt.Sprintf(" token %d came %.4f of the time, want %.4g ± %g;", i, shares[i], p[i], eps)
			}
		}
		if math.Abs(rate-wantRate) > eps {
			msg += fmt.Sprintf(" the proposal was accepted %.4f of the time, want %.4g ± %g;", rate, wantRate, eps)
		}
		return msg
	}

	budget := check.NewBudget(t, "rng.Float32()")
	shares, rate, ok := roundStats(budget, n, 9, p, q, func(x int, rng RNG) (int, bool, bool) {
		tokens, accepted := Verify([]int{x}, [][]float64{q}, [][]float64{p, p}, rng)
		if len(tokens) == 0 || tokens[0] < 0 || tokens[0] >= len(p) {
			t.Errorf("Verify([%d], [q], [p p], rng) = %s; want 1 or 2 tokens, each in 0..3", x, check.Vec(tokens))
			return 0, false, false
		}
		return tokens[0], accepted == 1, true
	})
	if !ok {
		return
	}
	if msg := far(shares, rate); msg != "" {
		t.Errorf("over %d rounds with q = %s and p = %s, the first token's shares are %s:%s its distribution must be the target's p, not the draft's q (a correct implementation fails this less than once in 10⁶ runs)",
			n, check.Vec(q), check.Vec(p), check.Vec(shares), msg)
	}

	// The test must catch wrong rules.
	wrong := map[string]func(x int, rng RNG) (int, bool, bool){
		"always accept": func(x int, rng RNG) (int, bool, bool) { return x, true, true },
		"replace from p": func(x int, rng RNG) (int, bool, bool) {
			if float64(rng.Float32())*q[x] < p[x] {
				return x, true, true
			}
			u, sum := float64(rng.Float32()), 0.0
			for i := range p {
				if sum += p[i]; u < sum {
					return i, false, true
				}
			}
			return len(p) - 1, false, true
		},
	}
	for name, rule := range wrong {
		shares, rate, _ := roundStats(budget, n, 10, p, q, rule)
		if far(shares, rate) == "" {
			t.Errorf("the wrong rule %q passed this test's check (shares %s); the test itself is broken", name, check.Vec(shares))
		}
	}
}
