// Package thinking: a second independent solution written for the
// similarity tests, leaning on the standard library: strings and strconv
// for the answer, sorting for the vote, and a table of log-factorials for
// the binomial sum.
package thinking

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

func ParseAnswer(completion string) (int, bool) {
	completion = strings.TrimRight(completion, " ")
	i := strings.LastIndexByte(completion, ' ')
	tail := completion[i+1:]
	if tail == "" || len(tail) > 18 || strings.IndexFunc(tail, func(r rune) bool { return !unicode.IsDigit(r) || r > '9' }) >= 0 {
		return 0, false
	}
	v, err := strconv.ParseInt(tail, 10, 64)
	if err != nil {
		return 0, false
	}
	return int(v), true
}

func Majority(answers []string) (string, int) {
	type cand struct {
		text  string
		count int
		first int
	}
	byText := map[string]*cand{}
	var all []*cand
	for i, s := range answers {
		if s == "" {
			continue
		}
		c, ok := byText[s]
		if !ok {
			c = &cand{text: s, first: i}
			byText[s] = c
			all = append(all, c)
		}
		c.count++
	}
	if len(all) == 0 {
		return "", 0
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].count != all[j].count {
			return all[i].count > all[j].count
		}
		return all[i].first < all[j].first
	})
	return all[0].text, all[0].count
}

type Problem struct{ A, B int }

func Accuracy(problems []Problem, solve func(prompt string) string) float64 {
	if len(problems) == 0 {
		return 0
	}
	var wins int
	var sb strings.Builder
	for _, pr := range problems {
		sb.Reset()
		sb.WriteString(strconv.Itoa(pr.A))
		sb.WriteByte('+')
		sb.WriteString(strconv.Itoa(pr.B))
		sb.WriteByte('=')
		if ans, ok := ParseAnswer(solve(sb.String())); ok {
			if ans == pr.A+pr.B {
				wins++
			}
		}
	}
	return float64(wins) / float64(len(problems))
}

func MajorityAccuracy(p float64, n int) float64 {
	if n < 1 || !(0 <= p && p <= 1) {
		return math.NaN()
	}
	if p == 0 || p == 1 {
		return p
	}
	// logFact[i] = log(i!)
	logFact := make([]float64, n+1)
	for i := 2; i <= n; i++ {
		logFact[i] = logFact[i-1] + math.Log(float64(i))
	}
	var sum float64
	for k := n/2 + 1; k <= n; k++ {
		lc := logFact[n] - logFact[k] - logFact[n-k]
		sum += math.Exp(lc + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
	}
	return math.Min(sum, 1)
}
