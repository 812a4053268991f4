package penalties

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: why negative logits are multiplied.
//
//grade:task 5 points 1
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "05-penalties", 1, "Answer1", Answer1, "abcd", "9ae9331dfac4f592c088b2dd4705d9d1e338960db45d6713bddbe332206ee0d5")
}

// TestQuiz2: presence and frequency penalties on a token seen three times.
//
//grade:task 5 points 1
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "05-penalties", 2, "Answer2", Answer2, "abcd", "5fe203d7e78d0a9831c924cc487eed3f94b2220d655252b39ba8a7a6f33174f0")
}

// TestQuiz3: what a no-repeat n-gram ban forbids.
//
//grade:task 5 points 1
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "05-penalties", 3, "Answer3", Answer3, "abcd", "4de824a1f220a5f7e310cc19d501c6343aaa91e1117ac64cea415cb12559c526")
}

// TestQuiz4: why strong penalties are risky for code.
//
//grade:task 5 points 1
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "05-penalties", 4, "Answer4", Answer4, "abcd", "df789c1317f8d5674134254d3b26f837daa5cfa23e5140093f46223c414f789e")
}
