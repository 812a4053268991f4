package engine

import (
	"math"

	"github.com/tokenbytoken/course/engine/internal/ggml"
)

// Arithmetic is how a model's forward pass rounds between its matrix
// products. (How the products round their inputs is each Matrix type's:
// see Matrix.Prepare.) The numbers differ from one arithmetic to another
// in their last bits, which a model can amplify to a logit and more; a
// model computed with the arithmetic of the program it is compared with
// gives that program's numbers.
type Arithmetic uint8

const (
	// RunC is llama2.c's run.c, in float32 throughout: keys and values
	// cached as float32, attention as softmax(q·K/√head_size)·V, RMSNorm's
	// mean square summed in float32, RoPE's angles from float32
	// frequencies. The engine computes llama2.c models this way.
	RunC Arithmetic = iota
	// LlamaCpp is llama.cpp's CPU backend with its default settings,
	// which the engine follows for GGUF models: keys and values cached in
	// f16 (half the memory of float32), attention as its flash-attention
	// kernels compute it (engine/internal/ggml: one position at a time,
	// in f16, for a decoding step and for batches of fewer than 64
	// tokens; by tiles, in float32, for larger batches), RMSNorm's mean
	// square summed in float64, RoPE's cosines and sines from angles
	// multiplied up in float32 and the rotation by fused multiply-adds,
	// SwiGLU with its vector exponential.
	LlamaCpp
)

func (a Arithmetic) String() string {
	switch a {
	case RunC:
		return "run.c"
	case LlamaCpp:
		return "llama.cpp"
	}
	return "unknown"
}

// Ubatch is how many tokens llama.cpp runs through the model at once by
// default (n_ubatch): a longer prompt goes in batches of this many, and
// each batch's attention is tiled or not by its own length.
const Ubatch = 512

// rmsnormLlamaCpp is rmsnorm as llama.cpp computes it: the squares
// (rounded to float32) summed in float64, their mean rounded to float32,
// scale = 1/√(mean + eps) in float32, then x·scale·weight.
func rmsnormLlamaCpp(out, x, weight []float32, eps float32) {
	var sum float64
	for _, v := range x {
		sum += float64(v * v)
	}
	normalize(out, x, weight, sum, eps)
}

// normalize sets out = x·scale·weight for the sum of squares sum.
func normalize(out, x, weight []float32, sum float64, eps float32) {
	mean := float32(sum / float64(len(x)))
	scale := 1 / float32(math.Sqrt(float64(mean+eps)))
	for i, v := range x {
		out[i] = v * scale * weight[i]
	}
}

// rmsnormRowsLlamaCpp applies rmsnormLlamaCpp to every row of width dim:
// four rows at a time, their four sums side by side, each summed in
// order as one row's is, so that the processor adds them in parallel.
func rmsnormRowsLlamaCpp(out, x, weight []float32, dim int, eps float32) {
	i := 0
	for ; i+4*dim <= len(x); i += 4 * dim {
		x0, x1, x2, x3 := x[i:i+dim], x[i+dim:i+2*dim], x[i+2*dim:i+3*dim], x[i+3*dim:i+4*dim]
		var s0, s1, s2, s3 float64
		for j, v := range x0 {
			s0 += float64(v * v)
			s1 += float64(x1[j] * x1[j])
			s2 += float64(x2[j] * x2[j])
			s3 += float64(x3[j] * x3[j])
		}
		for r, sum := range [4]float64{s0, s1, s2, s3} {
			o := i + r*dim
			normalize(out[o:o+dim], x[o:o+dim], weight, sum, eps)
		}
	}
	for ; i < len(x); i += dim {
		rmsnormLlamaCpp(out[i:i+dim], x[i:i+dim], weight, eps)
	}
}

// ropeLlamaCpp holds llama.cpp's cosines and sines of the rotary angles,
// interleaved (cos₀, sin₀, cos₁, …) a head's worth for each position, and
// grows with the positions run. llama.cpp computes a position's angles as
// successive float32 products, θ₀ = pos, θᵢ₊₁ = θᵢ·base^(−2/headSize) (that
// factor rounded to float32 first), and their cosines and sines with the C
// library's sincosf (ggml.SinCos).
type ropeLlamaCpp struct {
	hs     int
	factor float32 // base^(−2/headSize)
	cs     []float32
}

func newRopeLlamaCpp(c Config) *ropeLlamaCpp {
	hs := float32(c.HeadSize())
	base := float32(c.ropeTheta())
	return &ropeLlamaCpp{hs: c.HeadSize(), factor: float32(math.Pow(float64(base), float64(-2/hs)))}
}

// extend computes the angles of positions up to positions-1.
func (t *ropeLlamaCpp) extend(positions int) {
	have := len(t.cs) / max(t.hs, 1)
	if positions <= have || t.hs == 0 {
		return
	}
	t.cs = append(t.cs, make([]float32, (positions-have)*t.hs)...)
	for pos := have; pos < positions; pos++ {
		theta := float32(pos)
		cs := t.cs[pos*t.hs : (pos+1)*t.hs]
		for i := 0; i < t.hs; i += 2 {
			cs[i+1], cs[i] = ggml.SinCos(theta)
			theta *= t.factor
		}
	}
}

// apply rotates the heads vec[r0:r1] for position pos (r0 and r1 are
// whole heads), as llama.cpp computes it (ggml.Rotate).
func (t *ropeLlamaCpp) apply(vec []float32, pos, r0, r1 int) {
	ggml.Rotate(vec[r0:r1], t.cs[pos*t.hs:(pos+1)*t.hs])
}
