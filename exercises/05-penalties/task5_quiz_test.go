package penalties

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: why negative logits are multiplied.
//
//grade:task 5 selfcheck
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "05-penalties", 1, "Answer1", Answer1, "abcd", "f0c5e447af0ee2d8b1d981f81e25ee8d78d7f23e2c3686671aa4101ceb987369")
}

// TestQuiz2: presence and frequency penalties on a token seen three times.
//
//grade:task 5 selfcheck
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "05-penalties", 2, "Answer2", Answer2, "abcd", "c1931524c965838fc0114e3e11831473dd2b14e37d28cd062a5dc0d6b5b830ad")
}

// TestQuiz3: what a no-repeat n-gram ban forbids.
//
//grade:task 5 selfcheck
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "05-penalties", 3, "Answer3", Answer3, "abcd", "e0aca4f48a6fb4f642d12e41645a28799680799a6ff6d14e67356878b2da5ed2")
}

// TestQuiz4: why strong penalties are risky for code.
//
//grade:task 5 selfcheck
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "05-penalties", 4, "Answer4", Answer4, "abcd", "df789c1317f8d5674134254d3b26f837daa5cfa23e5140093f46223c414f789e")
}
