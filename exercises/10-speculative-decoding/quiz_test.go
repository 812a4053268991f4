package speculative

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: why checking is parallel and generating is not.
//
//grade:task 6 points 1
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "10-speculative-decoding", 1, "Answer1", Answer1, "abcd", "b714c1eb5e5bf51ce708da1d05e86bd36cb11e736b8d1f4da3021ab465f9539f")
}

// TestQuiz2: why the output is the target's, greedy and sampled.
//
//grade:task 6 points 1
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "10-speculative-decoding", 2, "Answer2", Answer2, "abcd", "5f1e6f49a2c312bed3087e0c7bd3aece361521815f3ec8dbce4190b25904288d")
}

// TestQuiz3: expected tokens per target pass.
//
//grade:task 6 points 1
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "10-speculative-decoding", 3, "Answer3", Answer3, "abcd", "16dd7f5ed47fd969b49edd4cd27c14f8b59f341392b4f08a1fc2042cc8257725")
}

// TestQuiz4: what makes a good draft, and when speculation is slower.
//
//grade:task 6 points 1
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "10-speculative-decoding", 4, "Answer4", Answer4, "abcd", "6984d45f0464273e770c4fbc02b9e9614d0434ba030f14507280bfe5b82ed2f8")
}
