// Package thinking is exercise 13: the arithmetic of thinking out loud.
// A model that writes its working before the answer, or that answers many
// times and takes a vote, produces more text than the answer itself; this
// exercise writes the small pieces that turn that text into a score: read
// the answer at the end of a completion, vote over several answers, measure
// a solver's accuracy, and predict what a vote of N samples is worth.
package thinking

// ParseAnswer reads the answer at the end of a completion: the last field
// of the text when it is split at spaces, provided it is made of the digits
// 0 to 9 only, at most 18 of them (so it fits an int). It returns the
// number and true, or 0 and false when the completion does not end in an
// answer.
//
//	ParseAnswer("625")                                → 625, true
//	ParseAnswer("7+8+0=15 5+6+1=12 3+2+1=06 so 625") → 625, true
//	ParseAnswer("7+8+0=15 5+6")                       → 0, false
//
// Task 1.
func ParseAnswer(completion string) (int, bool) {
	return 0, false
}

// Majority returns the answer given most often in answers and how many
// times it was given. An empty string is a sample that had no answer: it is
// not a vote. When several answers are tied for the most votes, the one
// that appears first in answers wins, so the same answers always give the
// same result. With no non-empty answer at all it returns "" and 0.
//
//	Majority(["625" "615" "625" "" "625"]) → "625", 3
//	Majority(["7" "8" "8" "7"])            → "7", 2 (a tie: "7" came first)
//
// Task 2.
func Majority(answers []string) (answer string, votes int) {
	return "", 0
}

// Problem is an addition: the prompt is A+B= and the right answer A + B.
type Problem struct{ A, B int }

// Accuracy asks solve to complete the prompt of every problem, written
// exactly as "357+268=" (fmt's %d+%d=), reads each completion's answer with
// ParseAnswer and returns the fraction of problems answered right. A
// completion without an answer is wrong. No problems: 0.
//
// Task 3.
func Accuracy(problems []Problem, solve func(prompt string) string) float64 {
	return 0
}

// MajorityAccuracy is the probability that a majority vote of n
// independent samples is right, when each sample is right with probability
// p and the wrong samples all give the same wrong answer (the worst case
// for a vote): the probability that strictly more than half of the n
// samples are right,
//
//	Σ over k > n/2 of  C(n, k) · p^k · (1−p)^(n−k)
//
// An even n can tie; a tie is not a majority, so it counts as wrong. It
// returns NaN when n < 1 or p is outside [0, 1]. n may be large (1001):
// compute each term without overflowing, e.g. with logarithms
// (math.Lgamma) or by updating one term from the previous one.
//
// Task 4.
func MajorityAccuracy(p float64, n int) float64 {
	return 0
}
