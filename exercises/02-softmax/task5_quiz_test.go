package softmax

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: what a logit is.
//
//grade:task 5 selfcheck
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "02-softmax", 1, "Answer1", Answer1, "abcd", "f2290d519cec5bd643acddce82564b8b859dac2239b313e54fbc908e41aad187")
}

// TestQuiz2: what softmax guarantees.
//
//grade:task 5 selfcheck
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "02-softmax", 2, "Answer2", Answer2, "abcd", "bed530539ad5bce117adbe51ad9f6c2551d6f524b54f7d67c7e924d900306b81")
}

// TestQuiz3: why softmax subtracts the largest logit.
//
//grade:task 5 selfcheck
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "02-softmax", 3, "Answer3", Answer3, "abcd", "be1c58fbb333c23a6a136d3f8553612f4ee475813c301c98b3f0967f9f0ea112")
}

// TestQuiz4: what temperature changes and what it does not.
//
//grade:task 5 selfcheck
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "02-softmax", 4, "Answer4", Answer4, "abcd", "959566d15e22f76129ab48eb9600bcb5d266e297159eb031e22098e228b30b84")
}
