package train

import (
	"math"

	"github.com/tokenbytoken/course/engine"
)

// AdamW is the Adam optimizer with decoupled weight decay (Loshchilov &
// Hutter). For each parameter it keeps a running mean of the gradient (M)
// and of its square (V), and moves the parameter by
//
//	lr · (m̂ / (√v̂ + ε) + wd · w)
//
// where m̂ and v̂ are the bias-corrected averages. Weight decay applies to
// matrices only, not to the RMSNorm gains.
type AdamW struct {
	Beta1, Beta2, Eps, WeightDecay float64
	M, V                           []float32
	// Step counts the updates made so far (for bias correction).
	Step int
	segs []segment
}

// NewAdamW makes an optimizer for parameters of shape c.
func NewAdamW(c engine.Config, beta1, beta2, eps, weightDecay float64) *AdamW {
	n := numParams(c)
	return &AdamW{Beta1: beta1, Beta2: beta2, Eps: eps, WeightDecay: weightDecay,
		M: make([]float32, n), V: make([]float32, n), segs: layoutOf(c)}
}

// Update applies one step with learning rate lr to params given grad.
func (o *AdamW) Update(params, grad []float32, lr float64) {
	o.Step++
	b1, b2 := float32(o.Beta1), float32(o.Beta2)
	c1 := float32(1 - math.Pow(o.Beta1, float64(o.Step)))
	c2 := float32(1 - math.Pow(o.Beta2, float64(o.Step)))
	eps, flr := float32(o.Eps), float32(lr)
	off := 0
	for _, s := range o.segs {
		w, g := params[off:off+s.n], grad[off:off+s.n]
		m, v := o.M[off:off+s.n], o.V[off:off+s.n]
		decay := float32(0)
		if s.decay {
			decay = float32(o.WeightDecay)
		}
		forRows(s.n, func(i0, i1 int) {
			for i := i0; i < i1; i++ {
				gi := g[i]
				m[i] = b1*m[i] + (1-b1)*gi
				v[i] = b2*v[i] + (1-b2)*gi*gi
				mh, vh := m[i]/c1, v[i]/c2
				w[i] -= flr * (mh/(float32(math.Sqrt(float64(vh)))+eps) + decay*w[i])
			}
		})
		off += s.n
	}
}

// ClipGradNorm scales grad down so that its Euclidean norm is at most
// maxNorm (when maxNorm > 0) and returns the norm before clipping. Large
// gradients, common early in training, then cannot throw the weights far.
func ClipGradNorm(grad []float32, maxNorm float64) float64 {
	// Partial sums over fixed blocks, added in order: deterministic.
	const block = 1 << 14
	parts := make([]float64, (len(grad)+block-1)/block)
	forEach(len(parts), func(b int) {
		var s float64
		for _, v := range grad[b*block : min((b+1)*block, len(grad))] {
			s += float64(v) * float64(v)
		}
		parts[b] = s
	})
	var sum float64
	for _, s := range parts {
		sum += s
	}
	norm := math.Sqrt(sum)
	if maxNorm > 0 && norm > maxNorm {
		f := float32(maxNorm / norm)
		for i := range grad {
			grad[i] *= f
		}
	}
	return norm
}
