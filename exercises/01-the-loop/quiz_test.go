package loop

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: why generating text is a loop.
//
//grade:task 4 points 1
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "01-the-loop", 1, "Answer1", Answer1, "abcd", "1953b4688c0e502edb6458f6ed404dbb779cbe0ad4ffa74d7c2af7f5d86c8775")
}

// TestQuiz2: why the model cannot revise what it wrote.
//
//grade:task 4 points 1
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "01-the-loop", 2, "Answer2", Answer2, "abcd", "20ac8abcf7f832cad823be9c37e5a7ffef3d42cadfd7800839fbeb2d02fcac7f")
}

// TestQuiz3: how many model steps a 500-token answer takes.
//
//grade:task 4 points 1
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "01-the-loop", 3, "Answer3", Answer3, "abcd", "9aa54ddc0cbf5287f34c3107451b7355381db0ad4ea1b38709d3abfab8af9305")
}

// TestQuiz4: why an answer can be streamed.
//
//grade:task 4 points 1
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "01-the-loop", 4, "Answer4", Answer4, "abcd", "392075011b0ea95fb1349fc0a456ed80141e80c01820a594b5b29f361eee1cb9")
}

// TestQuiz5: what one different early token does to the rest.
//
//grade:task 4 points 1
func TestQuiz5(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "01-the-loop", 5, "Answer5", Answer5, "abcd", "5cbafe41f5478bb9555ef14951403b75e763f782c535b10a761f9fec53dad777")
}
