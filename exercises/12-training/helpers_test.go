package training

import (
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/exercises/internal/check"
	"math"
)

// name shortens long logits for messages.
func name(z []float32) string {
	if len(z) > 12 {
		return fmt.Sprintf("<%d logits>", len(z))
	}
	return check.Vec(z)
}

// refLoss is −ln softmax(z)[target] in float64 on float64 logits: the
// tests' own reference, used for finite differences.
func refLoss(z []float64, target int) float64 {
	m := math.Inf(-1)
	for _, v := range z {
		m = max(m, v)
	}
	sum := 0.0
	for _, v := range z {
		sum += math.Exp(v - m)
	}
	return m + math.Log(sum) - z[target]
}

// to64 converts logits to float64 exactly.
func to64(z []float32) []float64 {
	out := make([]float64, len(z))
	for i, v := range z {
		out[i] = float64(v)
	}
	return out
}

// randomLogits returns n logits spread evenly over [-scale, scale), drawn
// from the engine's seeded generator so every run sees the same ones.
func randomLogits(seed uint64, n int, scale float64) []float32 {
	rng := decoding.NewRNG(seed)
	z := make([]float32, n)
	for i := range z {
		z[i] = float32((2*float64(rng.Float32()) - 1) * scale)
	}
	return z
}

// catLogits are lesson 2's ten words after "The cat sat on the": mat,
// floor, bed, sofa, chair, rug, table, the, ., dog.
var catLogits = []float32{3.8, 1.5, 1.3, 1.0, 0.6, 0.2, -0.2, -0.8, -1.0, -1.5}
