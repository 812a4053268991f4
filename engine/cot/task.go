package cot

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Format is how a model writes its answer to a problem.
type Format int

const (
	// Direct: the answer straight after the "=": "357+268=625".
	Direct Format = iota
	// Steps: one column at a time from the right, each step adding two
	// digits and the carry, then the answer:
	// "357+268=7+8+0=15 5+6+1=12 3+2+1=06 so 625".
	Steps
)

// Formats lists both formats, in order.
var Formats = []Format{Direct, Steps}

// String is "direct" or "steps".
func (f Format) String() string {
	switch f {
	case Direct:
		return "direct"
	case Steps:
		return "steps"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat reads "direct" or "steps".
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if s == f.String() {
			return f, nil
		}
	}
	return 0, fmt.Errorf("unknown format %q (direct or steps)", s)
}

// MaxDigits is the largest problem size the task uses: both numbers have
// at most this many digits.
const MaxDigits = 5

// Problem is one addition, A + B, of two numbers with Digits digits each.
type Problem struct {
	A, B   int
	Digits int
}

// NewProblem checks that a and b both have exactly digits digits (a single
// digit may be 0) and that digits is in 1..MaxDigits.
func NewProblem(a, b, digits int) (Problem, error) {
	if digits < 1 || digits > MaxDigits {
		return Problem{}, fmt.Errorf("%d digits: the task uses 1 to %d", digits, MaxDigits)
	}
	for _, v := range []int{a, b} {
		if v < 0 || len(strconv.Itoa(v)) != digits {
			return Problem{}, fmt.Errorf("%d does not have exactly %d digits", v, digits)
		}
	}
	return Problem{A: a, B: b, Digits: digits}, nil
}

// Prompt is what both models are given: "357+268=".
func (p Problem) Prompt() string { return fmt.Sprintf("%d+%d=", p.A, p.B) }

// Sum is the right answer.
func (p Problem) Sum() int { return p.A + p.B }

// Completion is what a model trained on format f should write after the
// prompt. For Steps, step k adds the k-th digits from the right and the
// carry into that column, and writes their sum as two digits: the carry
// out, then the answer's digit.
func (p Problem) Completion(f Format) string {
	if f != Steps {
		return strconv.Itoa(p.Sum())
	}
	var sb strings.Builder
	a, b, carry := p.A, p.B, 0
	for range p.Digits {
		da, db := a%10, b%10
		s := da + db + carry
		fmt.Fprintf(&sb, "%d+%d+%d=%02d ", da, db, carry, s)
		a, b, carry = a/10, b/10, s/10
	}
	sb.WriteString("so ")
	sb.WriteString(strconv.Itoa(p.Sum()))
	return sb.String()
}

// Text is a whole training example: the prompt and its completion.
func (p Problem) Text(f Format) string { return p.Prompt() + p.Completion(f) }

// Problems returns count random problems of the given size, the same for
// the same seed. Each number is drawn uniformly among those with exactly
// digits digits (0 to 9 for one digit).
func Problems(digits, count int, seed uint64) []Problem {
	r := rand.New(rand.NewPCG(seed, uint64(digits)))
	lo, hi := 0, 10
	if digits > 1 {
		lo = pow10(digits - 1)
		hi = 10 * lo
	}
	out := make([]Problem, count)
	for i := range out {
		out[i] = Problem{A: lo + r.IntN(hi-lo), B: lo + r.IntN(hi-lo), Digits: digits}
	}
	return out
}

func pow10(n int) int {
	p := 1
	for range n {
		p *= 10
	}
	return p
}

// ParseAnswer reads the answer in a completion: its last space-separated
// field, which must be a number. "625" and "7+8+0=15 … so 625" both give
// 625; a completion cut short ("7+8+0=15 5+6") has no answer.
func ParseAnswer(completion string) (int, bool) {
	fields := strings.Fields(completion)
	if len(fields) == 0 {
		return 0, false
	}
	last := fields[len(fields)-1]
	if len(last) > 18 {
		return 0, false
	}
	for _, c := range last {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	v, err := strconv.Atoi(last)
	return v, err == nil
}

// TestSeed draws the problems that measure the models (Problems(d, n,
// TestSeed)). Training examples come from their own seeds; with one or two
// digits there are so few problems that the models have seen them all.
const TestSeed = 2024
