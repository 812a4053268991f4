package seeds

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: what changed when the same prompt gave another answer.
//
//grade:task 4 selfcheck
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "11-seeds", 1, "Answer1", Answer1, "abcd", "afcf0b115adf125fa9a75619d23fd1d97044d5b9f47dac30b9fad2defe94624d")
}

// TestQuiz2: why one early token changes everything after it.
//
//grade:task 4 selfcheck
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "11-seeds", 2, "Answer2", Answer2, "abcd", "280b760c56d2f4870c9a5d7b249d4a6be74fcac6383beb0d85a0c4b6569a19c0")
}

// TestQuiz3: what to fix to reproduce a sample.
//
//grade:task 4 selfcheck
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "11-seeds", 3, "Answer3", Answer3, "abcd", "72b2560caade909d26143724952d2dcab2daf9483d90b1fea300072af084ded0")
}

// TestQuiz4: why temperature 0 is deterministic only on the same software
// and hardware.
//
//grade:task 4 selfcheck
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "11-seeds", 4, "Answer4", Answer4, "abcd", "4392882cc52b67fb2b69844a9e19c05acd47326b64d1613562211a3cf6539b8d")
}

// TestQuiz5: why one sample is not an evaluation.
//
//grade:task 4 selfcheck
func TestQuiz5(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "11-seeds", 5, "Answer5", Answer5, "abcd", "77a54245c4f0784bd9ca7b57b2e80400fc9bf26cbe3045a7728c806d883e05a1")
}
