package greedy

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: what greedy decoding does, and why it is deterministic.
//
//grade:task 5 selfcheck
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "03-greedy", 1, "Answer1", Answer1, "abcd", "180e9f3aa6fd4f4292dc957a41b92def076d2e1d28587dc729074915ea658d83")
}

// TestQuiz2: where determinism is a strength.
//
//grade:task 5 selfcheck
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "03-greedy", 2, "Answer2", Answer2, "abcd", "a9f8f5177899d998acdb721fdeac0c4e2de319dc496d2217345ba5b583a57fe6")
}

// TestQuiz3: why greedy text falls into loops.
//
//grade:task 5 selfcheck
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "03-greedy", 3, "Answer3", Answer3, "abcd", "576b16dc0229914a102e94018acc49c9e56cfe3694bd1a542171910087696f80")
}

// TestQuiz4: what the repeated 4-gram rate shows.
//
//grade:task 5 selfcheck
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "03-greedy", 4, "Answer4", Answer4, "abcd", "00a64f79f876716450c55e52913888e8edb8b1cc51e596663ec2bedc4e16ac9a")
}

// TestQuiz5: locally best is not globally best.
//
//grade:task 5 selfcheck
func TestQuiz5(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "03-greedy", 5, "Answer5", Answer5, "abcd", "f86f7caaead10bfe511ce77dbf93d1106e79dd9d953216fe4f7504c8f647b541")
}
