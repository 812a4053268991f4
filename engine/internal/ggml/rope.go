package ggml

import "fmt"

// Rotate applies rotary position embeddings to x, a run of heads, as
// llama.cpp's compiled code does (ggml's rope of the "normal" kind): cs
// holds a head's cosines and sines, interleaved (cos₀, sin₀, cos₁, …), and
// each pair (a, b) of each head becomes
//
//	(a·cos − b·sin, a·sin + b·cos)
//
// with the products with b rounded and those with a fused with the sums.
// It panics unless x is whole heads of len(cs) numbers.
func Rotate(x, cs []float32) {
	hs := len(cs)
	if hs == 0 || hs%2 != 0 || len(x)%hs != 0 {
		panic(fmt.Sprintf("ggml: Rotate of %d numbers by heads of %d", len(x), hs))
	}
	for h := 0; h < len(x); h += hs {
		head := x[h : h+hs]
		if useAVX2 && hs%8 == 0 {
			rotate8(hs/8, &head[0], &cs[0])
			continue
		}
		rotateGo(head, cs)
	}
}

func rotateGo(x, cs []float32) {
	for r := 0; r < len(x); r += 2 {
		a, b, cos, sin := x[r], x[r+1], cs[r], cs[r+1]
		x[r] = FMA32(a, cos, -float32(b*sin))
		x[r+1] = FMA32(a, sin, float32(b*cos))
	}
}
