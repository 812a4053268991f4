package softmax

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: what a logit is.
//
//grade:task 5 points 1
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "02-softmax", 1, "Answer1", Answer1, "abcd", "260c65a3eec36a97c54c3d7fffcfbda9da01724936976047d6135e1a71916ad4")
}

// TestQuiz2: what softmax guarantees.
//
//grade:task 5 points 1
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "02-softmax", 2, "Answer2", Answer2, "abcd", "bfebc726db85215c47c6826826faca950b650b53dd78fd80da2756d6c0f09fa6")
}

// TestQuiz3: why softmax subtracts the largest logit.
//
//grade:task 5 points 1
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "02-softmax", 3, "Answer3", Answer3, "abcd", "145e34398cddf8b7d2253861949ddc81b647a2b6aa02e9b86543ddfabd5c4ca8")
}

// TestQuiz4: what temperature changes and what it does not.
//
//grade:task 5 points 1
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "02-softmax", 4, "Answer4", Answer4, "abcd", "ef2a53ec497df0c95a100b9a488088330fc3d2b58a5bc84208ce17f43e729977")
}
