package greedy

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: what greedy decoding does, and why it is deterministic.
//
//grade:task 5 points 1
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "03-greedy", 1, "Answer1", Answer1, "abcd", "22cd4afdd8a926eee29c81052c14e77585c3403f026ddacb08bb119097cd33f6")
}

// TestQuiz2: where determinism is a strength.
//
//grade:task 5 points 1
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "03-greedy", 2, "Answer2", Answer2, "abcd", "67f14526d0983a89be7d7f73fbbc1fd4fbe1442e52e706da1185ef52d3c98fb8")
}

// TestQuiz3: why greedy text falls into loops.
//
//grade:task 5 points 1
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "03-greedy", 3, "Answer3", Answer3, "abcd", "60e2b983e72410c0ef903675fa6c61a4e06e560a813ca17b511916dd8b21ad4a")
}

// TestQuiz4: what the repeated 4-gram rate shows.
//
//grade:task 5 points 1
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "03-greedy", 4, "Answer4", Answer4, "abcd", "84d2cb01f4726599660673a5c14fd3419a046824bd9296a47a7607e9de6d1373")
}

// TestQuiz5: locally best is not globally best.
//
//grade:task 5 points 1
func TestQuiz5(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "03-greedy", 5, "Answer5", Answer5, "abcd", "31044ed27ef245e259e02ac9392a75dace8e66822bddc127bf4583c73cd2963a")
}
