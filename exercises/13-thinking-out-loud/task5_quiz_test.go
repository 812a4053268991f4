package thinking

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: why writing steps helps a model with a fixed amount of
// computation per token.
//
//grade:task 5 selfcheck
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "13-thinking-out-loud", 1, "Answer1", Answer1, "abcd", "cc199f1f6d5b05c66e50a50d88f94cbf574d5b6bff26bc451e6ee6998883b775")
}

// TestQuiz2: what a majority vote over N samples costs.
//
//grade:task 5 selfcheck
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "13-thinking-out-loud", 2, "Answer2", Answer2, "abcd", "e912d5ba8441ab81b20dd9b770182d1fd347de64176484c90a92f8e4e9d9b6d7")
}

// TestQuiz3: when more votes stop helping.
//
//grade:task 5 selfcheck
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "13-thinking-out-loud", 3, "Answer3", Answer3, "abcd", "d5c36e81d2a51de06062dd0fc85b7b2cc41d8fb8e6172a21bbcf8a34f9529910")
}

// TestQuiz4: why a vote samples at a temperature above 0.
//
//grade:task 5 selfcheck
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "13-thinking-out-loud", 4, "Answer4", Answer4, "abcd", "b8f55c42fe0b8188cd4adb97cef17336b0f0dd2c7fe71340496e263852e8189a")
}
