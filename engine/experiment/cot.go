package experiment

import (
	"context"
	"strconv"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/cot"
	"github.com/tokenbytoken/course/engine/decoding"
)

// Where answers to additions go wrong (notebook 13): each problem solved
// greedily, and the answers' mistakes digit by digit.

// SolveAll gives the model every problem with greedy decoding (cot.Solve)
// and returns the attempts, in order.
func SolveAll(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, problems []cot.Problem) ([]cot.Attempt, error) {
	attempts := make([]cot.Attempt, len(problems))
	for i, p := range problems {
		a, err := cot.Solve(ctx, m, tok, p, decoding.Options{})
		if err != nil {
			return nil, err
		}
		attempts[i] = a
	}
	return attempts, nil
}

// DigitAccuracy returns, for each digit of the right sums counted from the
// right (0: the units), the share of attempts whose answer has that digit
// right, counted over the problems whose sum has that many digits. An
// attempt without an answer is wrong in every digit.
func DigitAccuracy(attempts []cot.Attempt) []float64 {
	var right, total []int
	for _, a := range attempts {
		want := strconv.Itoa(a.Problem.Sum())
		got := ""
		if a.Answered {
			got = strconv.Itoa(a.Answer)
		}
		for i := range len(want) {
			if i == len(total) {
				right, total = append(right, 0), append(total, 0)
			}
			total[i]++
			if i < len(got) && got[len(got)-1-i] == want[len(want)-1-i] {
				right[i]++
			}
		}
	}
	shares := make([]float64, len(total))
	for i := range total {
		shares[i] = float64(right[i]) / float64(total[i])
	}
	return shares
}

// CarryMisses splits the attempts by whether the sum carries out of the
// leading column (it has one digit more than the numbers, as 7+5=12) and
// returns how many of each were wrong.
func CarryMisses(attempts []cot.Attempt) (carryWrong, carry, plainWrong, plain int) {
	for _, a := range attempts {
		if len(strconv.Itoa(a.Problem.Sum())) > a.Problem.Digits {
			carry++
			if !a.Correct {
				carryWrong++
			}
		} else {
			plain++
			if !a.Correct {
				plainWrong++
			}
		}
	}
	return carryWrong, carry, plainWrong, plain
}

// WrongAnswers lists up to n wrong attempts as "prompt" followed by what
// the model wrote, e.g. "25+40=66".
func WrongAnswers(attempts []cot.Attempt, n int) []string {
	var out []string
	for _, a := range attempts {
		if !a.Correct && len(out) < n {
			out = append(out, a.Problem.Prompt()+a.Completion)
		}
	}
	return out
}
