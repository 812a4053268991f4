package loop

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: why generating text is a loop.
//
//grade:task 4 selfcheck
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "01-the-loop", 1, "Answer1", Answer1, "abcd", "388acf60289a0ec6834eeb1a85519363ca368c119e33fb3460a65ca52d1647e0")
}

// TestQuiz2: why the model cannot revise what it wrote.
//
//grade:task 4 selfcheck
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "01-the-loop", 2, "Answer2", Answer2, "abcd", "f00aed69db40dbea79e4f2ed5e125146d09fb22da4f11eafb46ae811fe106fd8")
}

// TestQuiz3: how many model steps a 500-token answer takes.
//
//grade:task 4 selfcheck
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "01-the-loop", 3, "Answer3", Answer3, "abcd", "ab9546fdd4d63d54bf878c597e99c2f720eb3739c73a90b89840717b63ba39d6")
}

// TestQuiz4: why an answer can be streamed.
//
//grade:task 4 selfcheck
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "01-the-loop", 4, "Answer4", Answer4, "abcd", "79fa30ce608b41d732001573e92a2c4c5535b4efa6fb06c90602412a1dd779f2")
}

// TestQuiz5: what one different early token does to the rest.
//
//grade:task 4 selfcheck
func TestQuiz5(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "01-the-loop", 5, "Answer5", Answer5, "abcd", "1ef2f12d7ef571ed198ab1ddbdefddc74e8c514de93430198615e54ac2896961")
}
