// Package kvcache is exercise 07 of the Token by Token track: attention for
// the newest token over the keys and values of everything before it, and the
// KV cache that keeps those keys and values so that no step recomputes them.
//
// This is the reference solution. The exercise's stubs, tests and tasks are
// in exercises/07-kv-cache.
package kvcache

import "math"

// Attend is one head of attention for one query: softmax(q·k_t/√d) over the
// positions t, then the values weighted by those probabilities. It returns
// nil when the shapes do not fit.
//
// Scores, weights and sums are kept in float64, so the result is the exact
// answer rounded once to float32.
func Attend(q []float32, keys, values [][]float32) []float32 {
	d := len(q)
	if d == 0 || len(keys) == 0 || len(keys) != len(values) {
		return nil
	}
	dv := len(values[0])
	for t := range keys {
		if len(keys[t]) != d || len(values[t]) != dv {
			return nil
		}
	}

	// Scores, scaled by 1/√d so that they do not grow with the head size.
	scale := 1 / math.Sqrt(float64(d))
	scores := make([]float64, len(keys))
	best := math.Inf(-1)
	for t, k := range keys {
		var dot float64
		for i, qi := range q {
			dot += float64(qi) * float64(k[i])
		}
		scores[t] = dot * scale
		best = max(best, scores[t])
	}

	// Softmax, with the largest score subtracted so exp never overflows.
	var sum float64
	for t, s := range scores {
		scores[t] = math.Exp(s - best)
		sum += scores[t]
	}

	// The output: the values, weighted by the attention probabilities.
	acc := make([]float64, dv)
	for t, v := range values {
		w := scores[t] / sum
		for i, x := range v {
			acc[i] += w * float64(x)
		}
	}
	out := make([]float32, dv)
	for i, x := range acc {
		out[i] = float32(x)
	}
	return out
}

// AttendHeads is grouped-query attention for one query position: query
// head h attends, as Attend does, with key/value head h / (nHeads /
// nKVHeads). The heads' outputs are returned side by side.
func AttendHeads(q []float32, keys, values [][]float32, nHeads, nKVHeads int) []float32 {
	if nHeads <= 0 || nKVHeads <= 0 || nHeads%nKVHeads != 0 || len(q) == 0 || len(q)%nHeads != 0 {
		return nil
	}
	if len(keys) == 0 || len(keys) != len(values) {
		return nil
	}
	hs := len(q) / nHeads
	kvDim := nKVHeads * hs
	for t := range keys {
		if len(keys[t]) != kvDim || len(values[t]) != kvDim {
			return nil
		}
	}

	group := nHeads / nKVHeads // query heads per key/value head
	out := make([]float32, len(q))
	headKeys := make([][]float32, len(keys))
	headValues := make([][]float32, len(values))
	for kv := range nKVHeads {
		// The keys and values of one key/value head: a slice of each
		// position's vector, no copying.
		for t := range keys {
			headKeys[t] = keys[t][kv*hs : (kv+1)*hs]
			headValues[t] = values[t][kv*hs : (kv+1)*hs]
		}
		// Every query head of the group reads the same keys and values.
		for h := kv * group; h < (kv+1)*group; h++ {
			copy(out[h*hs:(h+1)*hs], Attend(q[h*hs:(h+1)*hs], headKeys, headValues))
		}
	}
	return out
}
