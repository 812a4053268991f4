package penalties

import (
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/exercises/internal/check"
	"math"
	"strings"
)

var inf = float32(math.Inf(-1))

// logitsMismatch is a failure message for logits got that should be want
// (as sameLogits decides): both, and where they differ when that does not
// show. note, if not "", ends the first line.
func logitsMismatch(call string, got, want []float32, note string) string {
	m := check.Mismatch(call, got, want, 1e-5)
	if i := strings.Index(m, "\n"); i >= 0 {
		return m[:i] + note + m[i:]
	}
	return m + note
}

// ending writes the last few tokens of a history, the ones an n-gram ban
// reads: "40 tokens ending … 3 3 0 2".
func ending(history []int) string {
	const tail = 6
	if len(history) <= 10 {
		return fmt.Sprint(history)
	}
	return fmt.Sprintf("%d tokens ending … %s", len(history), strings.Trim(fmt.Sprint(history[len(history)-tail:]), "[]"))
}

// clip cuts s to its first n runes, marking the cut with "…".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// clipStart cuts s to its last n runes, marking the cut with "…".
func clipStart(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n:])
}

// sameLogits reports whether got and want have the same length and agree
// within 1e-5 everywhere (-Inf only where want has -Inf).
func sameLogits(got, want []float32) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.IsInf(float64(want[i]), -1) || math.IsInf(float64(got[i]), -1) {
			if got[i] != want[i] {
				return false
			}
			continue
		}
		if !(math.Abs(float64(got[i])-float64(want[i])) <= 1e-5) {
			return false
		}
	}
	return true
}

// untouched lists the ids that are not in history.
func untouched(n int, history []int) []int {
	seen := make([]bool, n)
	for _, id := range history {
		seen[id] = true
	}
	var out []int
	for id := range n {
		if !seen[id] {
			out = append(out, id)
		}
	}
	return out
}

// randomCase returns n logits spread over about [-4, 4] and a history of h
// token ids drawn from the first k ids (so there are many repeats), the
// same on every run.
func randomCase(n, h, k int, seed uint64) ([]float32, []int) {
	rng := decoding.NewRNG(seed)
	z := make([]float32, n)
	for i := range z {
		z[i] = 8 * (rng.Float32() - 0.5)
	}
	history := make([]int, h)
	for i := range history {
		history[i] = int(rng.Uint32() % uint32(k))
	}
	return z, history
}

// differences describes, for up to three tokens, where got and want differ:
// the token, its logit before, how often it occurs in history, and both
// results.
func differences(before, got, want []float32, history []int) string {
	if len(got) != len(want) {
		return fmt.Sprintf("got %d logits; want %d", len(got), len(want))
	}
	var parts []string
	for id := range want {
		if sameLogits(got[id:id+1], want[id:id+1]) {
			continue
		}
		if len(parts) == 3 {
			parts = append(parts, "…")
			break
		}
		seen := 0
		for _, h := range history {
			if h == id {
				seen++
			}
		}
		parts = append(parts, fmt.Sprintf("token %d (logit %.4g, seen %d×): got %.4g, want %.4g", id, before[id], seen, got[id], want[id]))
	}
	return strings.Join(parts, "; ")
}
