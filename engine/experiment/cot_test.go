package experiment

import (
	"context"
	"github.com/tokenbytoken/course/engine/cot"
	"github.com/tokenbytoken/course/engine/decoding"
	"slices"
	"testing"
)

func lateProblem(t *testing.T, a, b, digits int) cot.Problem {
	t.Helper()
	p, err := cot.NewProblem(a, b, digits)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDigitAccuracyAndCarryMisses(t *testing.T) {
	attempts := []cot.Attempt{
		// 25+40=65, answered 66: units wrong, tens right.
		{Problem: lateProblem(t, 25, 40, 2), Completion: "66", Answer: 66, Answered: true},
		// 58+36=94, answered right.
		{Problem: lateProblem(t, 58, 36, 2), Completion: "94", Answer: 94, Answered: true, Correct: true},
		// 79+96=175, answered 176: units wrong, the rest right.
		{Problem: lateProblem(t, 79, 96, 2), Completion: "176", Answer: 176, Answered: true},
		// 88+12=100, no answer: wrong everywhere.
		{Problem: lateProblem(t, 88, 12, 2), Completion: "1"},
	}
	// Units: 1 of 4; tens: 3 of 4; hundreds: 1 of the 2 sums that have them.
	if got := DigitAccuracy(attempts); !slices.Equal(got, []float64{0.25, 0.75, 0.5}) {
		t.Errorf("DigitAccuracy = %v, want [0.25 0.75 0.5]", got)
	}
	cw, c, pw, p := CarryMisses(attempts)
	if cw != 2 || c != 2 || pw != 1 || p != 2 {
		t.Errorf("CarryMisses = %d of %d with a carry out, %d of %d without; want 2 of 2, 1 of 2", cw, c, pw, p)
	}
	if got := WrongAnswers(attempts, 2); !slices.Equal(got, []string{"25+40=66", "79+96=176"}) {
		t.Errorf("WrongAnswers = %q", got)
	}
}

func TestSolveAllIsSolve(t *testing.T) {
	m, tok := cot.MustLoad(cot.Steps)
	problems := cot.Problems(2, 3, cot.TestSeed)
	attempts, err := SolveAll(context.Background(), m, tok, problems)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range problems {
		want, _ := cot.Solve(context.Background(), m, tok, p, decoding.Options{})
		if attempts[i] != want {
			t.Errorf("problem %d: %+v, cot.Solve %+v", i, attempts[i], want)
		}
	}
}
