package projection

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: the projection's cost for d = 4096, V = 50,000.
//
//grade:task 5 selfcheck
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "06-vocabulary-projection", 1, "Answer1", Answer1, "abcd", "460cfb5904e818d1f1a56f8a65c29789559a0f0019e1707d0aaab9cd56392ced")
}

// TestQuiz2: what tied embeddings save.
//
//grade:task 5 selfcheck
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "06-vocabulary-projection", 2, "Answer2", Answer2, "abcd", "e189a28c88ece7eda6ea8ec6be690db828386b11d5d70a9af1658be619841a69")
}

// TestQuiz3: why the projection weighs most in a small model.
//
//grade:task 5 selfcheck
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "06-vocabulary-projection", 3, "Answer3", Answer3, "abcd", "a8fb08e88dd592ba46da9d801a72f069438b14f4ea6a4defd50b2e472552a836")
}

// TestQuiz4: why top-p barely changes the distribution.
//
//grade:task 5 selfcheck
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "06-vocabulary-projection", 4, "Answer4", Answer4, "abcd", "628ea7e64287239f398330694282749df1515bac97925afa9d4788acb764e32b")
}

// TestQuiz5: the trade-off of a larger vocabulary.
//
//grade:task 5 selfcheck
func TestQuiz5(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "06-vocabulary-projection", 5, "Answer5", Answer5, "abcd", "c9594f4c23be3c6a4caefe0a0523a2c3369c334767e027ce19e8eb400199d938")
}
