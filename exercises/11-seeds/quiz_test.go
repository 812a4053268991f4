package seeds

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: what changed when the same prompt gave another answer.
//
//grade:task 4 points 1
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "11-seeds", 1, "Answer1", Answer1, "abcd", "21f436965cd21093e5142cda6c8e293b93dd4bd94b876d6c06569243d86e8b32")
}

// TestQuiz2: why one early token changes everything after it.
//
//grade:task 4 points 1
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "11-seeds", 2, "Answer2", Answer2, "abcd", "280b760c56d2f4870c9a5d7b249d4a6be74fcac6383beb0d85a0c4b6569a19c0")
}

// TestQuiz3: what to fix to reproduce a sample.
//
//grade:task 4 points 1
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "11-seeds", 3, "Answer3", Answer3, "abcd", "1ec7da2e729a294872800bbd7c53dde1f34c39d89d39b2462853dcf801e88fad")
}

// TestQuiz4: why temperature 0 is deterministic only on the same software
// and hardware.
//
//grade:task 4 points 1
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "11-seeds", 4, "Answer4", Answer4, "abcd", "6f8d530a5588cdde3ca1c9be34c796bd28f2db18319e06a3d1846d0f7e357f3b")
}

// TestQuiz5: why one sample is not an evaluation.
//
//grade:task 4 points 1
func TestQuiz5(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "11-seeds", 5, "Answer5", Answer5, "abcd", "0c138a03a6ced38a850cd5dc2e3b10027a8227719aa96fb42fc63eb4a02e3fd8")
}
