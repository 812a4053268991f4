package simd

import (
	"fmt"
	"math"
)

// SwiGLU is the gate of a SwiGLU MLP: gate[i] = silu(gate[i])·up[i], where
// silu(g) = g·σ(g) = g/(1 + e^-g). With the kernels it takes 8 numbers at
// once, with ExpSum's exponential; each result is then within a few units
// in the last place of swigluGo's, the plain loop over math.Exp that runs
// without them. It panics if up is shorter than gate.
func SwiGLU(gate, up []float32) {
	if len(up) < len(gate) {
		panic(fmt.Sprintf("simd: SwiGLU: up holds %d numbers, gate %d", len(up), len(gate)))
	}
	if len(gate) == 0 {
		return
	}
	if !Available {
		swigluGo(gate, up)
		return
	}
	swiglu8(len(gate), &gate[0], &up[0])
}

// swigluGo is SwiGLU one number at a time, with math.Exp in float64.
func swigluGo(gate, up []float32) {
	for i, g := range gate {
		gate[i] = g * float32(1/(1+math.Exp(-float64(g)))) * up[i]
	}
}
