package stopping

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: who decides each way a generation can end.
//
//grade:task 4 points 1
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "08-stopping", 1, "Answer1", Answer1, "abcd", "3b37c5910e185384d993a85912b8acfae8e645853bc31c2703c1960720f9c8e4")
}

// TestQuiz2: what the finish reason "length" tells the caller.
//
//grade:task 4 points 1
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "08-stopping", 2, "Answer2", Answer2, "abcd", "20112fbc6ac5d7fade79ae06839a99f3701b01b8a353a381baad511db68b8b90")
}

// TestQuiz3: what a streaming server may print while a stop string arrives.
//
//grade:task 4 points 1
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "08-stopping", 3, "Answer3", Answer3, "abcd", "a71080aa7e5b41c9067fa9aa21be2b6f4f1ab041678016aca24f1e2396ff899b")
}

// TestQuiz4: why a byte-level tokenizer makes a server hold text back.
//
//grade:task 4 points 1
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "08-stopping", 4, "Answer4", Answer4, "abcd", "21a5ba71185d55c52c7528091aee8450cc7e97867a5eda4b586de3a27ad0c8c4")
}

// TestQuiz5: why stopping in the right place is not enough for structured output.
//
//grade:task 4 points 1
func TestQuiz5(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "08-stopping", 5, "Answer5", Answer5, "abcd", "323cfa2ab9d8b4778afc3e94ea8c3a593ae8e19084a0b045eeb1f0adfb74f35f")
}
