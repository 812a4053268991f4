// Package thinking: an independent solution written for the similarity
// tests. It reads the answer backwards byte by byte, votes by keeping the
// order in which answers first appeared, and sums the smaller tail of the
// binomial, updating each term from the one before.
package thinking

import (
	"fmt"
	"math"
)

func ParseAnswer(completion string) (int, bool) {
	end := len(completion)
	for end > 0 && completion[end-1] == ' ' {
		end--
	}
	start := end
	for start > 0 && completion[start-1] != ' ' {
		start--
	}
	word := completion[start:end]
	if word == "" || len(word) > 18 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(word); i++ {
		d := word[i]
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int(d-'0')
	}
	return n, true
}

func Majority(answers []string) (answer string, votes int) {
	var order []string
	tally := make(map[string]int)
	for _, a := range answers {
		if len(a) == 0 {
			continue
		}
		if tally[a] == 0 {
			order = append(order, a)
		}
		tally[a]++
	}
	for _, a := range order {
		if tally[a] > votes {
			answer = a
			votes = tally[a]
		}
	}
	return
}

type Problem struct{ A, B int }

func Accuracy(problems []Problem, solve func(prompt string) string) float64 {
	correct := 0.0
	for _, pr := range problems {
		out := solve(fmt.Sprintf("%d+%d=", pr.A, pr.B))
		v, ok := ParseAnswer(out)
		if ok && v == pr.A+pr.B {
			correct++
		}
	}
	if len(problems) == 0 {
		return 0
	}
	return correct / float64(len(problems))
}

// MajorityAccuracy sums the smaller of the two tails, the one away from
// the most likely count, so the terms that matter are never lost to
// rounding: for p ≥ 1/2 it is 1 minus the chance of at most n/2 right
// answers. Each binomial term comes from the previous one by the ratio of
// neighbouring terms, in logs.
func MajorityAccuracy(p float64, n int) float64 {
	if n < 1 || math.IsNaN(p) || p < 0 || p > 1 {
		return math.NaN()
	}
	switch p {
	case 0:
		return 0
	case 1:
		return 1
	}
	lp, lq := math.Log(p), math.Log1p(-p)
	half := n / 2
	if p >= 0.5 {
		// k = 0 … half, upwards from (1-p)^n.
		logTerm := float64(n) * lq
		lower := 0.0
		for k := 0; k <= half; k++ {
			lower += math.Exp(logTerm)
			logTerm += math.Log(float64(n-k)) - math.Log(float64(k+1)) + lp - lq
		}
		return 1 - lower
	}
	// k = n … half+1, downwards from p^n.
	logTerm := float64(n) * lp
	upper := 0.0
	for k := n; k > half; k-- {
		upper += math.Exp(logTerm)
		logTerm += math.Log(float64(k)) - math.Log(float64(n-k+1)) + lq - lp
	}
	return upper
}
