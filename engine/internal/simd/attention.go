package simd

import "fmt"

// The two loops of attention for one new token, over the keys and values
// of the positions before it, stored one position per row of stride
// numbers (a head's slice of the KV cache).

// Scores sets a[t] = scale·(q·k_t) for every position t < len(a), where
// k_t = keys[t·stride:][:len(q)]. With the kernels and a head size that is
// a multiple of 8 it computes 8 positions at once in vector registers;
// each dot product is then summed in a different order than a plain loop
// would, so results differ from it by rounding (a few units in the last
// place of the largest product). It panics if keys is too short.
func Scores(a, q, keys []float32, stride int, scale float32) {
	hs, n := len(q), len(a)
	if n == 0 {
		return
	}
	checkRows("Scores", "keys", keys, n, hs, stride)
	t := 0
	if Available && hs%8 == 0 && hs > 0 {
		if blocks := n / 8; blocks > 0 {
			scores8(blocks, hs, &q[0], &keys[0], stride, scale, &a[0])
			t = blocks * 8
		}
	}
	for ; t < n; t++ {
		a[t] = dotGo(q, keys[t*stride:][:hs]) * scale
	}
}

// WeightedSum sets out = Σ_t w[t]·v_t over the positions t < len(w), where
// v_t = values[t·stride:][:len(out)]. With the kernels and a head size
// that is a multiple of 8 it sums 8 numbers of out at once, over the
// positions in four interleaved partial sums; results differ from a plain
// loop by rounding. It panics if values is too short.
func WeightedSum(out, w, values []float32, stride int) {
	hs, n := len(out), len(w)
	if n == 0 {
		clear(out)
		return
	}
	checkRows("WeightedSum", "values", values, n, hs, stride)
	if Available && hs%8 == 0 && hs > 0 {
		weightedSum8(n, hs, &w[0], &values[0], stride, &out[0])
		return
	}
	for i := range out {
		var s float32
		for t, wt := range w {
			s += wt * values[t*stride+i]
		}
		out[i] = s
	}
}

// checkRows panics unless data holds n rows of cols numbers, stride apart:
// the kernels read memory directly, so a bad shape must stop here.
func checkRows(fn, name string, data []float32, n, cols, stride int) {
	if stride < cols || len(data) < (n-1)*stride+cols {
		panic(fmt.Sprintf("simd: %s: %s holds %d numbers, not %d rows of %d with stride %d", fn, name, len(data), n, cols, stride))
	}
}
