package stopping

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: who decides each way a generation can end.
//
//grade:task 4 selfcheck
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "08-stopping", 1, "Answer1", Answer1, "abcd", "0ac2d052bcbd5d5561f249b23d806b609f52a227947000cab2404ba8d8e5c4c4")
}

// TestQuiz2: what the finish reason "length" tells the caller.
//
//grade:task 4 selfcheck
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "08-stopping", 2, "Answer2", Answer2, "abcd", "e75f05886a3ed048f8c20dff0f8712ebc4a2e0c7e17af6d11f820d1ee533a58a")
}

// TestQuiz3: what a streaming server may print while a stop string arrives.
//
//grade:task 4 selfcheck
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "08-stopping", 3, "Answer3", Answer3, "abcd", "35b268a77bf39ab887d640f004b913f42d95a84f560617c63ac11ca9087a3500")
}

// TestQuiz4: why a byte-level tokenizer makes a server hold text back.
//
//grade:task 4 selfcheck
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "08-stopping", 4, "Answer4", Answer4, "abcd", "535c3ca5053efbddb0d9dd6985133d549516cd4c42029f433c443062853da1cf")
}

// TestQuiz5: why stopping in the right place is not enough for structured output.
//
//grade:task 4 selfcheck
func TestQuiz5(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "08-stopping", 5, "Answer5", Answer5, "abcd", "64ecfab4d3ea299add951ec5900f3e7b9825b1fa7a1a2a9aff0f8ca0d4c7bef1")
}
