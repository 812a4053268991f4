package kvcache

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestQuiz1: why keys and values can be kept.
//
//grade:task 5 points 1
func TestQuiz1(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "07-kv-cache", 1, "Answer1", Answer1, "abcd", "062021877b2eae952fc61050a26c4ca6821ea32a29875d3c45881389b66466af")
}

// TestQuiz2: positions run with and without a cache.
//
//grade:task 5 points 1
func TestQuiz2(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "07-kv-cache", 2, "Answer2", Answer2, "abcd", "e36cb95ad61232e803f447c14512beaf770f2e91950c21dd4392ee37df12a9c9")
}

// TestQuiz3: the cache of a large model, with and without GQA.
//
//grade:task 5 points 1
func TestQuiz3(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "07-kv-cache", 3, "Answer3", Answer3, "abcd", "437514f0bb6f097404c3111ff0ea4d3946b2f1a93391d5c41cc0ed521a959ed5")
}

// TestQuiz4: why prefill is faster per token than decode.
//
//grade:task 5 points 1
func TestQuiz4(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "07-kv-cache", 4, "Answer4", Answer4, "abcd", "eed93b98354104056df8892b703ec9826c2906ccaedcb9197b84878e0a29bc7f")
}

// TestQuiz5: what streaming does and does not change.
//
//grade:task 5 points 1
func TestQuiz5(t *testing.T) {
	defer check.Recover(t)
	check.Quiz(t, "07-kv-cache", 5, "Answer5", Answer5, "abcd", "a70f1890d4a930f9940324a3ed65a3782fd7b89e5aff7b07f336fac4fe8c18c6")
}
