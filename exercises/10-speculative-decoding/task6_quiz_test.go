package speculative

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: why checking is parallel and generating is not.
//
//grade:task 6 selfcheck
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "10-speculative-decoding", 1, "Answer1", Answer1, "abcd", "df8c4fb6294c31309ae2ec000cef645c9c74b14208da122b81c36bc17f35d15e")
}

// TestQuiz2: why the output is the target's, greedy and sampled.
//
//grade:task 6 selfcheck
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "10-speculative-decoding", 2, "Answer2", Answer2, "abcd", "9ea7fd31960323afe376fecc3db649a747235ae8868c06901b6c9aa74c2a8a7e")
}

// TestQuiz3: expected tokens per target pass.
//
//grade:task 6 selfcheck
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "10-speculative-decoding", 3, "Answer3", Answer3, "abcd", "fb10c3e3d430f8ad3da98c06809cbac6548bfa2170f505c24356567d07c10141")
}

// TestQuiz4: what makes a good draft, and when speculation is slower.
//
//grade:task 6 selfcheck
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "10-speculative-decoding", 4, "Answer4", Answer4, "abcd", "79da3e9f4872d15515204d4e49fac955701c37aadd42302d4b079bc469baf104")
}
