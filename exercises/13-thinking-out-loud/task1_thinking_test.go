package thinking

import (
	"context"
	"fmt"
	"github.com/tokenbytoken/course/engine/cot"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/exercises/internal/check"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestTask1_Answers: the answer at the end of a direct completion, of a
// completion with written steps, and of every steps completion the
// course's task generator writes for problems of 1 to 5 digits.
//
//grade:task 1 points 2
func TestTask1_Answers(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		text string
		want int
	}{
		{"625", 625},
		{"7+8+0=15 5+6+1=12 3+2+1=06 so 625", 625},
		{"3+2+0=05 so 5", 5},
		{" 42 ", 42},
		{"0", 0},
		{"so 007", 7},
		{"so 123456789012345678", 123456789012345678},
	} {
		if got, ok := ParseAnswer(c.text); got != c.want || !ok {
			t.Errorf("ParseAnswer(%q) = %d, %v; want %d, true", c.text, got, ok, c.want)
		}
	}
	for d := 1; d <= cot.MaxDigits; d++ {
		for _, p := range cot.Problems(d, 20, 13) {
			text := p.Completion(cot.Steps)
			if got, ok := ParseAnswer(text); got != p.Sum() || !ok {
				t.Fatalf("ParseAnswer(%q) = %d, %v; want %d, true", text, got, ok, p.Sum())
			}
		}
	}
}

// TestTask1_NoAnswer: a completion cut short, or whose last field is not
// made of digits only, has no answer; one that ends in a number does.
//
//grade:task 1 points 1
func TestTask1_NoAnswer(t *testing.T) {
	defer check.Recover(t)
	if got, ok := ParseAnswer("9+9+0=18 so 18"); got != 18 || !ok {
		t.Errorf("ParseAnswer(%q) = %d, %v; want 18, true", "9+9+0=18 so 18", got, ok)
	}
	for _, text := range []string{
		"", "   ", "7+8+0=15 5+6", "7+8+0=15 so", "so 6x5", "so -5", "so +5", "so 62.5",
		"so 1234567890123456789", // 19 digits: too many for an int
	} {
		if got, ok := ParseAnswer(text); ok || got != 0 {
			t.Errorf("ParseAnswer(%q) = %d, %v; want 0, false (no answer)", text, got, ok)
		}
	}
}

// TestTask2_Majority: the answer most samples give, and its votes; empty
// answers are not votes.
//
//grade:task 2 points 2
func TestTask2_Majority(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		answers []string
		want    string
		votes   int
	}{
		{[]string{"625", "615", "625", "", "625"}, "625", 3},
		{[]string{"1"}, "1", 1},
		{[]string{"a", "b", "b"}, "b", 2},
		{[]string{"", "", "3"}, "3", 1},
		{[]string{"5", "4", "4", "3", "3", "3", "", "", "", ""}, "3", 3},
	} {
		if got, votes := Majority(c.answers); got != c.want || votes != c.votes {
			t.Errorf("Majority(%q) = %q, %d; want %q, %d", c.answers, got, votes, c.want, c.votes)
		}
	}
}

// TestTask2_Ties: among answers tied for the most votes, the one that
// appears first wins, every time (a map's order must not decide).
//
//grade:task 2 points 2
func TestTask2_Ties(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		answers []string
		want    string
		votes   int
	}{
		{[]string{"7", "8", "8", "7"}, "7", 2},
		{[]string{"8", "7", "7", "8"}, "8", 2},
		{[]string{"", "z", "y", "x"}, "z", 1},
		{[]string{"1", "2", "2", "3", "3", "1"}, "1", 2},
	} {
		for range 20 {
			if got, votes := Majority(c.answers); got != c.want || votes != c.votes {
				t.Fatalf("Majority(%q) = %q, %d; want %q, %d (a tie goes to the answer that appears first)", c.answers, got, votes, c.want, c.votes)
			}
		}
	}
	var many []string
	for i := range 40 {
		many = append(many, strconv.Itoa(39-i))
	}
	for range 20 {
		if got, votes := Majority(many); got != "39" || votes != 1 {
			t.Fatalf("Majority(40 different answers, first \"39\") = %q, %d; want \"39\", 1", got, votes)
		}
	}
}

// TestTask2_MatchesEngine: on 300 random lists of answers (some empty),
// Majority agrees with decoding.Majority; a list with no answer gives "", 0.
//
//grade:task 2 points 1
func TestTask2_MatchesEngine(t *testing.T) {
	defer check.Recover(t)
	r := rand.New(rand.NewPCG(13, 2))
	for i := range 300 {
		answers := make([]string, 1+r.IntN(9))
		for j := range answers {
			if k := r.IntN(5); k > 0 {
				answers[j] = strconv.Itoa(k)
			}
		}
		want, err := decoding.Majority(answers)
		got, votes := Majority(answers)
		if err != nil { // no answer at all
			if got != "" || votes != 0 {
				t.Fatalf("Majority(%q) = %q, %d; want \"\", 0 (no sample has an answer)", answers, got, votes)
			}
			continue
		}
		if got != want.Answer || votes != want.Votes {
			t.Fatalf("list %d: Majority(%q) = %q, %d; want %q, %d", i, answers, got, votes, want.Answer, want.Votes)
		}
	}
}

// solver wraps solve with a budget for one call of Accuracy, doing (as the
// failure messages write it), which asks it once per problem: n times.
func solver(t *testing.T, doing string, n int, solve func(prompt string) string) func(prompt string) string {
	budget := check.NewBudget(t, "the solver").For(doing, n+10, "Accuracy asks the solver once per problem: does its loop move on to the next problem, and stop after the last?")
	return func(prompt string) string {
		budget.Spend()
		return solve(prompt)
	}
}

// TestTask3_Accuracy: a scripted solver answers four problems, three of
// them right (one by writing its steps); the prompts it receives are
// "A+B=".
//
//grade:task 3 points 2
func TestTask3_Accuracy(t *testing.T) {
	defer check.Recover(t)
	problems := []Problem{{357, 268}, {3, 2}, {99, 99}, {12, 34}}
	completions := map[string]string{
		"357+268=": "7+8+0=15 5+6+1=12 3+2+1=06 so 625", // right
		"3+2=":     "5",                                 // right
		"99+99=":   "188",                               // wrong
		"12+34=":   "46",                                // right
	}
	var asked []string
	solve := func(prompt string) string {
		asked = append(asked, prompt)
		return completions[prompt]
	}
	if got := Accuracy(problems, solver(t, fmt.Sprintf("Accuracy(%v)", problems), len(problems), solve)); math.Abs(got-0.75) > 1e-12 {
		t.Errorf("Accuracy(%v) = %.4g; want 0.75 (3 of 4 right); the solver was asked %s", problems, got, check.List(asked, strconv.Quote))
	}
	fails := check.NewLimit(t, 3)
	for _, p := range asked {
		if _, ok := completions[p]; !ok {
			fails.Errorf("the solver was asked %q, which is not a prompt of the form \"357+268=\"", p)
		}
	}
	fails.Close()
	if len(asked) != len(problems) {
		t.Errorf("the solver was asked %d times (%s); want once per problem, %d", len(asked), check.List(asked, strconv.Quote), len(problems))
	}
}

// TestTask3_EdgeCases: a completion cut before its answer is wrong; all
// right is 1; no problems is 0, without calling the solver.
//
//grade:task 3 points 1
func TestTask3_EdgeCases(t *testing.T) {
	defer check.Recover(t)
	cut := func(string) string { return "7+8+0=15 5+6" }
	right := func(prompt string) string {
		var a, b int
		fmt.Sscanf(prompt, "%d+%d=", &a, &b)
		return strconv.Itoa(a + b)
	}
	problems := []Problem{{1, 2}, {40, 2}}
	if got := Accuracy(problems, solver(t, "Accuracy with a solver that is always right", len(problems), right)); got != 1 {
		t.Errorf("Accuracy with a solver that is always right = %.4g; want 1", got)
	}
	if got := Accuracy(problems, solver(t, "Accuracy with a solver that never reaches an answer", len(problems), cut)); got != 0 {
		t.Errorf("Accuracy with a solver that never reaches an answer = %.4g; want 0", got)
	}
	called := false
	if got := Accuracy(nil, solver(t, "Accuracy(no problems)", 0, func(string) string { called = true; return "" })); got != 0 || called {
		t.Errorf("Accuracy(no problems) = %.4g (solver called: %v); want 0 without calling the solver", got, called)
	}
}

// TestTask3_CourseModel: the accuracy of the course's steps model (greedy)
// on 20 three-digit problems, as Accuracy measures it, equals what
// engine/cot's Evaluate measures; the worked answers of the same problems
// score 1.
//
//grade:task 3 points 1
func TestTask3_CourseModel(t *testing.T) {
	defer check.Recover(t)
	m, tok, err := cot.Load(cot.Steps)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ps := cot.Problems(3, 20, 5)
	want, err := cot.Evaluate(ctx, m, tok, ps, decoding.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var problems []Problem
	byPrompt := map[string]cot.Problem{}
	for _, p := range ps {
		problems = append(problems, Problem{p.A, p.B})
		byPrompt[p.Prompt()] = p
	}
	solve := func(prompt string) string {
		p, ok := byPrompt[prompt]
		if !ok {
			t.Fatalf("the solver was asked %q, not one of the problems' prompts", prompt)
		}
		a, err := cot.Solve(ctx, m, tok, p, decoding.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return a.Completion
	}
	if got := Accuracy(problems, solver(t, "Accuracy of the steps model on 20 three-digit problems", len(problems), solve)); math.Abs(got-want.Accuracy()) > 1e-12 {
		t.Errorf("Accuracy of the steps model on 20 three-digit problems = %.4g; engine/cot measures %.4g", got, want.Accuracy())
	}
	// The steps the model was trained on, written out in full, are always right.
	worked := func(prompt string) string { return byPrompt[prompt].Completion(cot.Steps) }
	if got := Accuracy(problems, solver(t, "Accuracy of the training format's worked answers on 20 three-digit problems", len(problems), worked)); got != 1 {
		t.Errorf("Accuracy of the training format's worked answers on 20 three-digit problems = %.4g; want 1", got)
	}
}

// TestTask4_HandValues: P(more than half of n samples are right) for small
// n, worked out by hand (within 1e-9).
//
//grade:task 4 points 2
func TestTask4_HandValues(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		p    float64
		n    int
		want float64
		why  string
	}{
		{0.6, 1, 0.6, "p"},
		{0.6, 3, 0.648, "p³ + 3p²(1−p)"},
		{0.6, 5, 0.68256, "p⁵ + 5p⁴(1−p) + 10p³(1−p)²"},
		{0.9, 3, 0.972, "p³ + 3p²(1−p)"},
		{0.4, 3, 0.352, "p³ + 3p²(1−p): below p, since p < 1/2"},
		{0.5, 7, 0.5, "1/2 by symmetry"},
		{0.7, 9, 0.90119134, "Σ k = 5..9 of C(9,k) 0.7^k 0.3^(9−k)"},
	} {
		if got := MajorityAccuracy(c.p, c.n); !(math.Abs(got-c.want) <= 1e-9) {
			t.Errorf("MajorityAccuracy(%g, %d) = %.10g; want %s = %.10g", c.p, c.n, got, c.why, c.want)
		}
	}
}

// TestTask4_TiesAndEdges: an even n can tie, and a tie is not a majority;
// p of 0 or 1 gives 0 or 1; an n below 1 or a p outside [0, 1] gives NaN.
//
//grade:task 4 points 1
func TestTask4_TiesAndEdges(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		p    float64
		n    int
		want float64
		why  string
	}{
		{0.5, 2, 0.25, "both right: a 1–1 tie is not a majority"},
		{0.6, 4, 0.4752, "P(3 or 4 right) = 4·0.6³·0.4 + 0.6⁴"},
		{0, 5, 0, "never right"},
		{1, 4, 1, "always right"},
	} {
		if got := MajorityAccuracy(c.p, c.n); !(math.Abs(got-c.want) <= 1e-9) {
			t.Errorf("MajorityAccuracy(%g, %d) = %.10g; want %.10g (%s)", c.p, c.n, got, c.want, c.why)
		}
	}
	for _, c := range []struct {
		p float64
		n int
	}{{0.5, 0}, {0.5, -3}, {1.5, 3}, {-0.1, 3}, {math.NaN(), 3}} {
		if got := MajorityAccuracy(c.p, c.n); !math.IsNaN(got) {
			t.Errorf("MajorityAccuracy(%g, %d) = %.4g; want NaN (no such vote)", c.p, c.n, got)
		}
	}
}

// TestTask4_ManySamples: with n up to 1001 the sum neither overflows nor
// loses its terms: it matches the test's own computation within 1e-9,
// rises towards 1 with n when p > 1/2 and falls towards 0 when p < 1/2.
//
//grade:task 4 points 1
func TestTask4_ManySamples(t *testing.T) {
	defer check.Recover(t)
	for _, p := range []float64{0.55, 0.45, 0.8} {
		prev := math.NaN()
		for _, n := range []int{1, 3, 9, 31, 101, 301, 1001} {
			got, want := MajorityAccuracy(p, n), binomialTail(p, n)
			if !(math.Abs(got-want) <= 1e-9) {
				t.Fatalf("MajorityAccuracy(%g, %d) = %.10g; want %.10g", p, n, got, want)
			}
			if !math.IsNaN(prev) && (p > 0.5 && got < prev || p < 0.5 && got > prev) {
				t.Errorf("MajorityAccuracy(%g, %d) = %.6g moved the wrong way from %.6g at the smaller n", p, n, got, prev)
			}
			prev = got
		}
	}
}

// binomialTail is P(X > n/2) for X ~ Binomial(n, p), computed the slow,
// sure way: every term in 256-bit floating point, C(n, k) exactly.
func binomialTail(p float64, n int) float64 {
	const prec = 256
	bp, bq := new(big.Float).SetPrec(prec).SetFloat64(p), new(big.Float).SetPrec(prec).SetFloat64(1-p)
	pow := func(x *big.Float, k int) *big.Float {
		r := new(big.Float).SetPrec(prec).SetInt64(1)
		for range k {
			r.Mul(r, x)
		}
		return r
	}
	sum := new(big.Float).SetPrec(prec)
	for k := n/2 + 1; k <= n; k++ {
		c := new(big.Float).SetPrec(prec).SetInt(new(big.Int).Binomial(int64(n), int64(k)))
		sum.Add(sum, c.Mul(c, pow(bp, k)).Mul(c, pow(bq, n-k)))
	}
	f, _ := sum.Float64()
	return f
}
