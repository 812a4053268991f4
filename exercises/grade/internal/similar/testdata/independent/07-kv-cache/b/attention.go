// Package kvcache: a second independent solution written for the
// similarity tests. Attention is online: one pass keeps a running maximum
// and rescales the accumulated sum whenever the maximum grows.
package kvcache

import "math"

func Attend(q []float32, keys, values [][]float32) []float32 {
	if len(q) == 0 || len(keys) == 0 || len(keys) != len(values) {
		return nil
	}
	outDim := len(values[0])
	for i := range keys {
		if len(keys[i]) != len(q) {
			return nil
		}
		if len(values[i]) != outDim {
			return nil
		}
	}
	scale := math.Sqrt(float64(len(q)))
	runMax := math.Inf(-1)
	denom := 0.0
	acc := make([]float64, outDim)
	for i, key := range keys {
		var score float64
		for j := range q {
			score += float64(q[j]) * float64(key[j])
		}
		score /= scale
		if score > runMax {
			// Everything so far was weighted against a smaller maximum.
			shrink := math.Exp(runMax - score)
			denom *= shrink
			for j := range acc {
				acc[j] *= shrink
			}
			runMax = score
		}
		e := math.Exp(score - runMax)
		denom += e
		for j, x := range values[i] {
			acc[j] += e * float64(x)
		}
	}
	result := make([]float32, outDim)
	for j := range acc {
		result[j] = float32(acc[j] / denom)
	}
	return result
}

func AttendHeads(q []float32, keys, values [][]float32, nHeads, nKVHeads int) []float32 {
	if nHeads <= 0 || nKVHeads <= 0 || nHeads%nKVHeads != 0 {
		return nil
	}
	if len(q) == 0 || len(q)%nHeads != 0 || len(keys) == 0 || len(keys) != len(values) {
		return nil
	}
	hd := len(q) / nHeads
	for i := range keys {
		if len(keys[i]) != hd*nKVHeads || len(values[i]) != hd*nKVHeads {
			return nil
		}
	}
	result := make([]float32, 0, len(q))
	k := make([][]float32, len(keys))
	v := make([][]float32, len(values))
	for qh := 0; qh < nHeads; qh++ {
		g := qh * nKVHeads / nHeads
		for i := range keys {
			k[i] = keys[i][g*hd : (g+1)*hd]
			v[i] = values[i][g*hd : (g+1)*hd]
		}
		result = append(result, Attend(q[qh*hd:(qh+1)*hd], k, v)...)
	}
	return result
}
