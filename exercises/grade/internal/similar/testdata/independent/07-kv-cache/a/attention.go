// Package kvcache: an independent solution written for the similarity
// tests. Attention is built from small vector helpers, and the heads are
// gathered into fresh slices.
package kvcache

import "math"

func dot(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// weights is the softmax of the scores, in place.
func weights(s []float64) {
	m := s[0]
	for _, x := range s {
		m = math.Max(m, x)
	}
	z := 0.0
	for i := range s {
		s[i] = math.Exp(s[i] - m)
		z += s[i]
	}
	for i := range s {
		s[i] /= z
	}
}

func shapesOK(q []float32, keys, values [][]float32) bool {
	if len(q) == 0 || len(keys) == 0 || len(values) != len(keys) {
		return false
	}
	for t := range keys {
		if len(keys[t]) != len(q) || len(values[t]) != len(values[0]) {
			return false
		}
	}
	return true
}

func Attend(q []float32, keys, values [][]float32) []float32 {
	if !shapesOK(q, keys, values) {
		return nil
	}
	inv := 1 / math.Sqrt(float64(len(q)))
	s := make([]float64, len(keys))
	for t := range keys {
		s[t] = dot(q, keys[t]) * inv
	}
	weights(s)
	sum := make([]float64, len(values[0]))
	for t, row := range values {
		for j := range row {
			sum[j] += s[t] * float64(row[j])
		}
	}
	res := make([]float32, len(sum))
	for j := range sum {
		res[j] = float32(sum[j])
	}
	return res
}

// head returns part h of every row, each of size n.
func head(rows [][]float32, h, n int) [][]float32 {
	out := make([][]float32, 0, len(rows))
	for _, r := range rows {
		out = append(out, r[h*n:h*n+n])
	}
	return out
}

func AttendHeads(q []float32, keys, values [][]float32, nHeads, nKVHeads int) []float32 {
	switch {
	case nHeads < 1, nKVHeads < 1:
		return nil
	case nHeads%nKVHeads != 0, len(q) == 0, len(q)%nHeads != 0:
		return nil
	case len(keys) == 0, len(keys) != len(values):
		return nil
	}
	size := len(q) / nHeads
	for t := range keys {
		if len(keys[t]) != nKVHeads*size || len(values[t]) != nKVHeads*size {
			return nil
		}
	}
	perKV := nHeads / nKVHeads
	var res []float32
	for h := 0; h < nHeads; h++ {
		kv := h / perKV
		o := Attend(q[h*size:h*size+size], head(keys, kv, size), head(values, kv, size))
		res = append(res, o...)
	}
	return res
}
