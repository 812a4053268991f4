package training

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: why a fresh model scores about ln V.
//
//grade:task 5 points 1
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "12-training", 1, "Answer1", Answer1, "abcd", "7b94233a717c47a5362e263e0ee8623e6a8dd3cd09adfc0f1406434e78b78b20")
}

// TestQuiz2: what a loss of ln 2 at one position means.
//
//grade:task 5 points 1
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "12-training", 2, "Answer2", Answer2, "abcd", "4ba53825ca193ed5785f553cf0c6532ec7deb430295d27d68f7edd2a78510f38")
}

// TestQuiz3: what one step against the gradient does to the logits.
//
//grade:task 5 points 1
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "12-training", 3, "Answer3", Answer3, "abcd", "75e505017559edb166217458b0c5680164efc82516d07d91ec13837a44a3a01f")
}

// TestQuiz4: training loss or validation loss.
//
//grade:task 5 points 1
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "12-training", 4, "Answer4", Answer4, "abcd", "ece57bec4b992d09693ad64e58f2761a1169dc742fb8f7bf0a2d0ead6e2f4a92")
}

// TestQuiz5: why training scores a whole window in one pass.
//
//grade:task 5 points 1
func TestQuiz5(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "12-training", 5, "Answer5", Answer5, "abcd", "5e1040c6010fa698b308dc00564f823f02ad45f47b568c7b5516dc609a466b70")
}
