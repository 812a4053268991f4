package decoding

import (
	"math"
	"sync"

	"github.com/tokenbytoken/course/engine/internal/parallel"
	"github.com/tokenbytoken/course/engine/internal/simd"
)

// TokenLogProb is one token and the log-probability the model gave it.
type TokenLogProb struct {
	ID      int
	Text    string // the token's text at this position (raw bytes)
	LogProb float64
}

// LogProbOf returns log softmax(logits)[id], the model's own log-probability
// of a token (before any sampling stage), without allocating. Its
// exponentials are float32 (see logSumExp), so it may differ from
// LogSoftmax's float64 figure by less than 10^-6.
//
// A token the logits do not cover (id < 0 or id ≥ len(logits)) has
// probability 0, so its log-probability is -Inf; so has every token when
// every logit is -Inf (every token banned, see Softmax). A logit that is
// NaN or +Inf gives NaN.
func LogProbOf(logits []float32, id int) float64 {
	if id < 0 || id >= len(logits) {
		return math.Inf(-1)
	}
	return logProb(logits[id], logSumExp(logits))
}

// logProb is z - lse, the log-probability of a logit z given the logits'
// logSumExp, except that when lse is -Inf (every logit -Inf) it is -Inf:
// no token has any probability.
func logProb(z float32, lse float64) float64 {
	if math.IsInf(lse, -1) {
		return lse
	}
	return float64(z) - lse
}

// TopLogProbs returns the n most likely tokens under the model's
// distribution, most likely first (lower id first on ties), with their
// log-probabilities. Text is left empty; Generate fills it in. When every
// logit is -Inf, the first n ids are returned, each with -Inf.
func TopLogProbs(logits []float32, n int) []TokenLogProb {
	n = min(n, len(logits))
	if n <= 0 {
		return nil
	}
	lse := logSumExp(logits)
	top := make([]TokenLogProb, 0, n)
	for id, z := range logits {
		lp := logProb(z, lse)
		if len(top) == n && lp <= top[n-1].LogProb {
			continue
		}
		// Insert in order, dropping the smallest when full.
		i := len(top)
		if i < n {
			top = append(top, TokenLogProb{})
		} else {
			i = n - 1
		}
		for i > 0 && top[i-1].LogProb < lp {
			top[i] = top[i-1]
			i--
		}
		top[i] = TokenLogProb{ID: id, LogProb: lp}
	}
	return top
}

// logSumExp is log Σ exp(z_j), computed stably around the maximum. No
// logits, or only -Inf ones, give -Inf, the log of a sum of zeros; a logit
// that is NaN or +Inf gives NaN.
//
// Every generated token needs it for its Step.LogProb, so it runs over the
// whole vocabulary at every step: the kernels find the maximum and sum the
// exponentials 8 logits at a time (simd.Max, simd.SumExp), where a
// loop of math.Exp would cost a good part of a small model's forward pass.
// Their exponentials are float32, so the result may differ from
// logSumExpLoop's: by 2^-22 (each term's 2 units in the last place) plus
// 2^-24 times the mean distance of a logit below the maximum, weighted by
// its probability (the rounding of z − max). That mean is at most the
// distribution's entropy, itself at most the log of the vocabulary's
// size, so the difference stays under 10^-6 for any vocabulary of fewer
// than e^12 tokens: less than the rounding of the float32 logits.
func logSumExp(logits []float32) float64 {
	m := simd.Max(logits) // -Inf for no logits, NaN if one is NaN
	switch {
	case math.IsInf(float64(m), -1):
		return float64(m) // z - m below would be NaN
	case math.IsNaN(float64(m)) || math.IsInf(float64(m), 1):
		return math.NaN()
	}
	return float64(m) + math.Log(sumExp(logits, m))
}

// sumExp is simd.SumExp(z, m) taken in pieces of lseChunk logits (the
// last one shorter), whose sums are added in order: the same number
// whatever the number of cores. A vocabulary of lseShared logits or more
// shares the pieces among the cores. That halves the exponentials' time
// at two cores, and, as it is work handed to the cores between two
// forward passes, the helpers are still watching for work when the next
// pass starts (see engine/internal/parallel).
func sumExp(z []float32, m float32) float64 {
	if len(z) <= lseChunk {
		return simd.SumExp(z, m)
	}
	pieces := (len(z) + lseChunk - 1) / lseChunk
	sums := lseSums.Get().(*[]float64)
	if cap(*sums) < pieces {
		*sums = make([]float64, pieces)
	}
	part := (*sums)[:pieces]
	parallel.ForEqual(pieces, len(z) >= lseShared, func(_, p0, p1 int) {
		for p := p0; p < p1; p++ {
			part[p] = simd.SumExp(z[p*lseChunk:min((p+1)*lseChunk, len(z))], m)
		}
	})
	var sum float64
	for _, s := range part {
		sum += s
	}
	lseSums.Put(sums)
	return sum
}

// lseChunk and lseShared: see sumExp.
const (
	lseChunk  = 4096
	lseShared = 1 << 14
)

var lseSums = sync.Pool{New: func() any { return new([]float64) }}

// logSumExpLoop is logSumExp as a learner would write it, in float64 with
// math.Exp: the reference the kernels are tested against.
func logSumExpLoop(logits []float32) float64 {
	mx := math.Inf(-1)
	for _, z := range logits {
		mx = max(mx, float64(z))
	}
	if math.IsInf(mx, -1) {
		return mx // z - mx below would be NaN
	}
	var sum float64
	for _, z := range logits {
		sum += math.Exp(float64(z) - mx)
	}
	return mx + math.Log(sum)
}
