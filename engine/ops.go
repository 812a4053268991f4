package engine

import (
	"math"

	"gonum.org/v1/gonum/blas/blas32"

	"github.com/tokenbytoken/course/engine/internal/simd"
)

// rmsEps is the epsilon inside RMSNorm's square root, in llama2.c's
// models (see Config.NormEps).
const rmsEps = 1e-5

// rmsnorm writes x / rms(x) * weight into out: it rescales x to unit root
// mean square, then applies the learned per-channel gain. eps keeps the
// square root away from zero.
func rmsnorm(out, x, weight []float32, eps float32) {
	var ss float32
	for _, v := range x {
		ss += v * v
	}
	ss /= float32(len(x))
	ss += eps
	inv := float32(1 / math.Sqrt(float64(ss)))
	for i, v := range x {
		out[i] = weight[i] * (inv * v)
	}
}

// rope applies rotary position embeddings to vec, a run of heads of width
// headSize: within each head, the pair (2i, 2i+1) is rotated by the angle
// pos × theta^(-2i/headSize), theta being 10000 in llama2.c's models.
func rope(vec []float32, pos, headSize int, theta float64) {
	for i := 0; i < len(vec); i += 2 {
		cos, sin := ropeAngle(pos, i%headSize, headSize, theta)
		a, b := vec[i], vec[i+1]
		vec[i] = a*cos - b*sin
		vec[i+1] = a*sin + b*cos
	}
}

// ropeAngle is the cosine and sine of the rotation of pair (hd, hd+1) of a
// head at position pos. The frequency is rounded to float32 first, as
// llama2.c computes it.
func ropeAngle(pos, hd, headSize int, theta float64) (cos, sin float32) {
	freq := 1 / math.Pow(theta, float64(hd)/float64(headSize))
	angle := float64(pos) * float64(float32(freq))
	return float32(math.Cos(angle)), float32(math.Sin(angle))
}

// ropeTable holds the cosine and sine of every rotation angle, (position,
// headSize/2), so the forward pass does no trigonometry. It gives exactly
// the numbers rope computes, and grows with the positions run.
type ropeTable struct {
	half     int
	theta    float64
	cos, sin []float32
}

// extend computes the angles of positions up to positions-1.
func (t *ropeTable) extend(positions int) {
	have := len(t.cos) / max(t.half, 1)
	if positions <= have || t.half == 0 {
		return
	}
	t.cos = append(t.cos, make([]float32, (positions-have)*t.half)...)
	t.sin = append(t.sin, make([]float32, (positions-have)*t.half)...)
	for pos := have; pos < positions; pos++ {
		for i := range t.half {
			t.cos[pos*t.half+i], t.sin[pos*t.half+i] = ropeAngle(pos, 2*i, 2*t.half, t.theta)
		}
	}
}

// apply rotates vec, a run of heads, for position pos (see rope).
func (t *ropeTable) apply(vec []float32, pos int) { t.applyRows(vec, pos, 0, len(vec)) }

// applyRows rotates the numbers r0..r1-1 of vec, a run of heads, for
// position pos; r0 and r1 are even, so the pairs stay whole.
func (t *ropeTable) applyRows(vec []float32, pos, r0, r1 int) {
	cos, sin := t.cos[pos*t.half:(pos+1)*t.half], t.sin[pos*t.half:(pos+1)*t.half]
	i := r0 % (2 * t.half) / 2 // the pair's place in its head
	for r := r0; r+1 < r1; r += 2 {
		a, b := vec[r], vec[r+1]
		vec[r] = a*cos[i] - b*sin[i]
		vec[r+1] = a*sin[i] + b*cos[i]
		if i++; i == t.half {
			i = 0
		}
	}
}

// swiglu writes silu(gate) * up into gate, where silu(x) = x·σ(x). It
// uses engine/internal/simd's SwiGLU, 8 numbers at a time, when the CPU
// has the kernels and swigluKernel is on, and swigluPlain otherwise.
func swiglu(gate, up []float32) {
	if swigluKernel && simd.Available {
		simd.SwiGLU(gate, up)
		return
	}
	swigluPlain(gate, up)
}

// swigluKernel says whether swiglu may use the kernel. The tests turn it
// off to compare with the plain loop.
var swigluKernel = true

// swigluPlain is swiglu one number at a time: σ(x) = 1/(1 + e^-x).
func swigluPlain(gate, up []float32) {
	for i, g := range gate {
		gate[i] = g * float32(1/(1+math.Exp(-float64(g)))) * up[i]
	}
}

// add adds y into x.
func add(x, y []float32) {
	for i := range x {
		x[i] += y[i]
	}
}

// dot is the dot product of a and b. Short vectors (attention heads are
// often 8 to 64 wide) are summed by a plain loop, in order; a call into
// BLAS costs more than it saves below about 32 elements.
func dot(a, b []float32) float32 {
	if len(a) < shortVector {
		b = b[:len(a)]
		var s float32
		for i, v := range a {
			s += v * b[i]
		}
		return s
	}
	return blas32.Dot(blas32.Vector{N: len(a), Inc: 1, Data: a}, blas32.Vector{N: len(b), Inc: 1, Data: b})
}

// axpy adds alpha·x into y.
func axpy(y []float32, alpha float32, x []float32) {
	if len(y) < shortVector {
		x = x[:len(y)]
		for i := range y {
			y[i] += alpha * x[i]
		}
		return
	}
	blas32.Axpy(alpha, blas32.Vector{N: len(x), Inc: 1, Data: x}, blas32.Vector{N: len(y), Inc: 1, Data: y})
}

// shortVector is the length below which dot and axpy use plain loops.
const shortVector = 32

// firstNonFinite returns the index of the first NaN or infinite value in
// x, or -1. simd.Finite answers for the whole of x first, 16 numbers at
// a time; only when it finds one does the plain loop look for where.
func firstNonFinite(x []float32) int {
	if simd.Finite(x) {
		return -1
	}
	for i, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return i
		}
	}
	return -1
}
