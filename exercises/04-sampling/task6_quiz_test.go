package sampling

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: what temperature changes and what it leaves alone.
//
//grade:task 6 selfcheck
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "04-sampling", 1, "Answer1", Answer1, "abcd", "d9d0ae5706b1a50a4d0d9e2795e44863eac2a8424ac1ae169a160ebe517f26ee")
}

// TestQuiz2: why top-p is adaptive.
//
//grade:task 6 selfcheck
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "04-sampling", 2, "Answer2", Answer2, "abcd", "e294978d13c7228fcb6aca62be938da4134dade6f59103f348d2c4bd0ccd2c20")
}

// TestQuiz3: what min-p keeps, and how it differs from top-p.
//
//grade:task 6 selfcheck
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "04-sampling", 3, "Answer3", Answer3, "abcd", "6ac62c18b557a516315d0206e81fcbb4bf776050a55a04868ed018023aa5f376")
}

// TestQuiz4: why the same prompt gives different outputs.
//
//grade:task 6 selfcheck
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "04-sampling", 4, "Answer4", Answer4, "abcd", "fac09060c52e03023f4b244b71e86dc629640cc09cbb62f6cc5c152bb359411a")
}
