package projection

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: the projection's cost for d = 4096, V = 50,000.
//
//grade:task 5 points 1
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "06-vocabulary-projection", 1, "Answer1", Answer1, "abcd", "f79b1ed5ac3b06261af907c4ca99812b727187a29858e20e595c261e6557c4f6")
}

// TestQuiz2: what tied embeddings save.
//
//grade:task 5 points 1
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "06-vocabulary-projection", 2, "Answer2", Answer2, "abcd", "e189a28c88ece7eda6ea8ec6be690db828386b11d5d70a9af1658be619841a69")
}

// TestQuiz3: why the projection weighs most in a small model.
//
//grade:task 5 points 1
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "06-vocabulary-projection", 3, "Answer3", Answer3, "abcd", "905ceb27a21e3f9b80154d5bf8e116aba01a625f568af5dae6fb184d359fe384")
}

// TestQuiz4: why top-p barely changes the distribution.
//
//grade:task 5 points 1
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "06-vocabulary-projection", 4, "Answer4", Answer4, "abcd", "54f3ee84ae3aedfaab06e5f4a39255ee52ffede6aff04751fe5d9ab44cddc80f")
}

// TestQuiz5: the trade-off of a larger vocabulary.
//
//grade:task 5 points 1
func TestQuiz5(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "06-vocabulary-projection", 5, "Answer5", Answer5, "abcd", "87f777c93629890e29cadb9d926040e33380f647ab0486b935f290aa573f7123")
}
