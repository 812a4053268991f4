package training

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: why a fresh model scores about ln V.
//
//grade:task 5 selfcheck
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "12-training", 1, "Answer1", Answer1, "abcd", "701139f5b2c45e494dbad86d744e3855cf6ff08b1fc483e6a9ed7063787c245c")
}

// TestQuiz2: what a loss of ln 2 at one position means.
//
//grade:task 5 selfcheck
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "12-training", 2, "Answer2", Answer2, "abcd", "d42dda8e255b9db8a584a519170c1d850fc64e562a3e7d8f069029b216c1fac3")
}

// TestQuiz3: what one step against the gradient does to the logits.
//
//grade:task 5 selfcheck
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "12-training", 3, "Answer3", Answer3, "abcd", "c48d11548d540479f6201cd5882f5420853ae21fa2a29b1650bad09ea86f9e48")
}

// TestQuiz4: training loss or validation loss.
//
//grade:task 5 selfcheck
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "12-training", 4, "Answer4", Answer4, "abcd", "1ce04360a7b978a5dda7a1470456e6723981b8db8375adbf36ed58e8635ac361")
}

// TestQuiz5: why training scores a whole window in one pass.
//
//grade:task 5 selfcheck
func TestQuiz5(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "12-training", 5, "Answer5", Answer5, "abcd", "5e1040c6010fa698b308dc00564f823f02ad45f47b568c7b5516dc609a466b70")
}
