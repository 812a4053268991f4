package structured

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: why a mask, rather than retrying until the output is valid.
//
//grade:task 6 selfcheck
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "14-structured-output", 1, "Answer1", Answer1, "abcd", "155095b322704a82d68186b0e2c68071fb7f910fbf615816d5a8b52cc2affbbf")
}

// TestQuiz2: what the mask does with a token that crosses symbols.
//
//grade:task 6 selfcheck
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "14-structured-output", 2, "Answer2", Answer2, "abcd", "a51957a282916c584561f902c8d4f3636a3f3eaa6994a4cfab96c2758b45883a")
}

// TestQuiz3: why the end token waits for an accepting state.
//
//grade:task 6 selfcheck
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "14-structured-output", 3, "Answer3", Answer3, "abcd", "85652faf2ee872bffe79f2b7694ea029c2bedc8b5799b16f40bfd465c0410221")
}

// TestQuiz4: where the mask goes in the sampler chain.
//
//grade:task 6 selfcheck
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "14-structured-output", 4, "Answer4", Answer4, "abcd", "c037b04a8e211d35adc9b8ade681ad98d95b25c2adaede01e46f05cdcbf687a7")
}

// TestQuiz5: what a constraint guarantees, and what it does not.
//
//grade:task 6 selfcheck
func TestQuiz5(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "14-structured-output", 5, "Answer5", Answer5, "abcd", "bde1c636f71febb59bb887897c4659d67f2fcfad14c82e75087687e383a89f18")
}
