package sampling

import (
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/exercises/internal/check"
	"math"
	"slices"
	"testing"
)

// coins is a scripted RNG: it returns the chosen values in order, so a test
// knows every coin and can work out the right pick by hand. Past the end it
// returns 0 (and counts the extra calls), and a few calls past it the
// budget stops code that keeps drawing.
type coins struct {
	vals   []float32
	calls  int
	budget *check.Budget
}

// coinHint says how many coins a draw takes, for a budget's message.
const coinHint = "Draw, and so Sample, takes exactly one coin: is a loop drawing again and again?"

// scripted returns coins for the call doing (as the failure messages write
// it), which may take a few more than vals holds.
func scripted(t *testing.T, doing string, vals ...float32) *coins {
	return &coins{vals: vals, budget: check.NewBudget(t, "rng.Float32()").For(doing, len(vals)+20, coinHint)}
}

// boundedRNG is an RNG, such as *decoding.RNG, whose calls a budget bounds.
type boundedRNG struct {
	RNG
	budget *check.Budget
}

func (r boundedRNG) Float32() float32 {
	r.budget.Spend()
	return r.RNG.Float32()
}

// seeded returns decoding.NewRNG(seed) for the calls doing, which may take
// max coins.
func seeded(t *testing.T, seed uint64, doing string, max int) RNG {
	return boundedRNG{decoding.NewRNG(seed), check.NewBudget(t, "rng.Float32()").For(doing, max, coinHint)}
}

func (c *coins) Float32() float32 {
	c.budget.Spend()
	c.calls++
	if c.calls <= len(c.vals) {
		return c.vals[c.calls-1]
	}
	return 0
}

// probsMismatch is a failure message for a distribution got that should be
// want: both, with the tokens each keeps (a dropped token of probability
// 1e-7 is still a dropped token), then where they differ by more than tol.
// note, if not "", follows the wanted tokens: where want comes from, or why.
func probsMismatch(call string, got, want []float32, tol float64, note string) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%s = %s; want %s (kept %s)%s", call, check.Vec(got), check.Vec(want), check.Vec(keptIDs(want)), note)
	}
	msg := fmt.Sprintf("%s = %s (kept %s); want %s (kept %s)%s", call, check.Vec(got), check.Vec(keptIDs(got)), check.Vec(want), check.Vec(keptIDs(want)), note)
	if d := check.Diff(got, want, tol); d != "" {
		msg += "\n" + d
	}
	return msg
}

// keptIDs lists the ids of p with positive probability, in increasing order.
func keptIDs(p []float32) []int {
	ids := []int{}
	for i, v := range p {
		if v > 0 {
			ids = append(ids, i)
		}
	}
	return ids
}

// close32 reports whether got and want have the same length, agree within
// tol everywhere, and give probability 0 to the same tokens (a dropped token
// of probability 1e-7 is still a dropped token).
func close32(got, want []float32, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !(math.Abs(float64(got[i])-float64(want[i])) <= tol) || (got[i] == 0) != (want[i] == 0) {
			return false
		}
	}
	return true
}

// restrict returns p with only the ids in keep, divided by their total: the
// distribution a filter that keeps those ids must return.
func restrict(p []float32, keep []int) []float32 {
	out := make([]float32, len(p))
	var sum float64
	for _, id := range keep {
		sum += float64(p[id])
	}
	for _, id := range keep {
		out[id] = float32(float64(p[id]) / sum)
	}
	return out
}

// f32 converts probabilities to float32.
func f32(p []float64) []float32 {
	out := make([]float32, len(p))
	for i, v := range p {
		out[i] = float32(v)
	}
	return out
}

// randomLogits returns n logits spread over about [-4, 4], the same on every
// run; ties are (practically) impossible.
func randomLogits(n int, seed uint64) []float32 {
	rng := decoding.NewRNG(seed)
	z := make([]float32, n)
	for i := range z {
		z[i] = 8 * (rng.Float32() - 0.5)
	}
	return z
}

// nearCumulative reports whether some running sum of p, taken from the most
// to the least likely token, lies within 1e-5 of x. Fixtures avoid such p:
// there the engine's rule (sum > p) and Hugging Face's (sum ≥ p), or a
// float32 and a float64 sum, could disagree.
func nearCumulative(p []float32, x float64) bool {
	s := slices.Clone(p)
	slices.SortFunc(s, func(a, b float32) int {
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	})
	var cum float64
	for _, v := range s {
		cum += float64(v)
		if math.Abs(cum-x) < 1e-5 {
			return true
		}
	}
	return false
}

// binomialCheck compares draw counts with the probabilities they should
// follow: every count must lie within 5.5 standard deviations of n·p, and a
// token of probability 0 must never be drawn. For one token a correct
// sampler lands outside with probability about 4·10⁻⁸, so with up to 20
// tokens a correct implementation fails less than once in 10⁶ runs. It
// returns "" or what is wrong.
func binomialCheck(counts []int, want []float64, n int) string {
	for i, p := range want {
		got := counts[i]
		if p == 0 {
			if got != 0 {
				return fmt.Sprintf("token %d has probability 0 but was drawn %d times out of %d", i, got, n)
			}
			continue
		}
		mean := float64(n) * p
		sd := math.Sqrt(float64(n) * p * (1 - p))
		if math.Abs(float64(got)-mean) > 5.5*sd {
			return fmt.Sprintf("token %d was drawn %d times out of %d (share %.4f); want about %.0f (probability %.4f, allowed ±%.0f)",
				i, got, n, float64(got)/float64(n), mean, p, 5.5*sd)
		}
	}
	return ""
}
