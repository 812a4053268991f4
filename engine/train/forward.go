package train

import (
	"fmt"
	"math"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/memory"
	"github.com/tokenbytoken/course/engine/internal/simd"
)

// rmsEps is RMSNorm's epsilon, as in the engine.
const rmsEps = 1e-5

// net runs the model on a batch of B sequences of T tokens at once, as
// matrices of N = B·T rows, and keeps every intermediate result the
// backward pass needs.
type net struct {
	p       *Params
	B, T, N int
	cos     []float32 // (T, head_size/2) rotary angles, computed as the engine does
	sin     []float32

	xIn    [][]float32 // (layers+1) × (N, dim): residual stream entering each layer, then the last one
	rA, rF [][]float32 // per layer (N): 1/rms before attention and before the MLP
	xnA    [][]float32 // per layer (N, dim): normalised input of attention
	q      [][]float32 // per layer (N, dim): rotated queries
	k, v   [][]float32 // per layer (N, kv_dim): rotated keys, values
	att    [][]float32 // per layer (B, heads, T, T): attention probabilities
	ao     [][]float32 // per layer (N, dim): attention output before wo
	xMid   [][]float32 // per layer (N, dim): residual stream after attention
	xnF    [][]float32 // per layer (N, dim): normalised input of the MLP
	h1, h3 [][]float32 // per layer (N, hidden): gate and up projections
	g      [][]float32 // per layer (N, hidden): silu(h1)·h3
	rFinal []float32   // (N)
	xf     []float32   // (N, dim): final normalised stream
	logits []float32   // (N, vocab): logits, then probabilities, then their gradient
	rowNLL []float64   // (N): loss of each row

	tokens, targets []int32
	counted         int // rows with a target

	grads *backwardBuffers // allocated on first backward pass
}

// netBytes is the memory of a net for batches of B sequences of T tokens:
// the forward pass's saved activations, and with backward the gradient
// buffers and a gradient for every parameter. The attention probabilities,
// layers × B × heads × T × T, grow with the square of the context.
func netBytes(c engine.Config, B, T int, backward bool) int64 {
	L, d, h, kv, V := int64(c.NLayers), int64(c.Dim), int64(c.HiddenDim), int64(c.KVDim()), int64(c.VocabSize)
	b, t, heads := int64(B), int64(T), int64(c.NHeads)
	N := b * t
	floats := (L+1)*N*d + 2*L*N + 5*L*N*d + 2*L*N*kv + L*b*heads*t*t + 3*L*N*h + N + N*d + N*V + 2*N
	if backward {
		floats += N*(4*d+2*kv+3*h) + b*int64(c.NKVHeads)*t*t + int64(numParams(c))
	}
	return 4 * floats
}

// checkNet refuses a net that would not fit in the memory available.
func checkNet(c engine.Config, B, T int, backward bool) error {
	what := fmt.Sprintf("a pass over a batch of %d × %d tokens of a %d-layer model (its attention alone is %d layers × %d × %d heads × %d² floats)", B, T, c.NLayers, c.NLayers, B, c.NHeads, T)
	return memory.Check(what, netBytes(c, B, T, backward))
}

// newNet allocates the buffers for batches of B sequences of T tokens.
func newNet(p *Params, B, T int) *net {
	c := p.Config
	L, d, h, kv, V := c.NLayers, c.Dim, c.HiddenDim, c.KVDim(), c.VocabSize
	N := B * T
	n := &net{p: p, B: B, T: T, N: N}
	hs := c.HeadSize()
	n.cos, n.sin = make([]float32, T*hs/2), make([]float32, T*hs/2)
	for pos := range T {
		for i := 0; i < hs/2; i++ {
			freq := 1 / math.Pow(10000, float64(2*i)/float64(hs))
			angle := float64(pos) * float64(float32(freq))
			n.cos[pos*hs/2+i] = float32(math.Cos(angle))
			n.sin[pos*hs/2+i] = float32(math.Sin(angle))
		}
	}
	mk := func(count, size int) [][]float32 {
		out := make([][]float32, count)
		for i := range out {
			out[i] = make([]float32, size)
		}
		return out
	}
	n.xIn = mk(L+1, N*d)
	n.rA, n.rF = mk(L, N), mk(L, N)
	n.xnA, n.q, n.ao, n.xMid, n.xnF = mk(L, N*d), mk(L, N*d), mk(L, N*d), mk(L, N*d), mk(L, N*d)
	n.k, n.v = mk(L, N*kv), mk(L, N*kv)
	n.att = mk(L, B*c.NHeads*T*T)
	n.h1, n.h3, n.g = mk(L, N*h), mk(L, N*h), mk(L, N*h)
	n.rFinal, n.xf = make([]float32, N), make([]float32, N*d)
	n.logits = make([]float32, N*V)
	n.rowNLL = make([]float64, N)
	return n
}

// forward runs the batch and returns the mean cross-entropy loss (in nats)
// over the rows whose target is not negative, and how many rows that is.
// tokens and targets hold N ids each, sequence after sequence.
func (n *net) forward(tokens, targets []int32) (float64, int) {
	p, c := n.p, n.p.Config
	L, d, hid, kv, V, N := c.NLayers, c.Dim, c.HiddenDim, c.KVDim(), c.VocabSize, n.N
	n.tokens, n.targets = tokens, targets

	x := n.xIn[0]
	for i, t := range tokens {
		copy(x[i*d:(i+1)*d], p.Emb[int(t)*d:int(t+1)*d])
	}
	for l := range L {
		x := n.xIn[l]
		rmsnormRows(n.xnA[l], n.rA[l], x, p.RMSAtt[l*d:(l+1)*d], d)
		linear(n.q[l], n.xnA[l], p.Wq[l*d*d:(l+1)*d*d], N, d, d)
		linear(n.k[l], n.xnA[l], p.Wk[l*kv*d:(l+1)*kv*d], N, kv, d)
		linear(n.v[l], n.xnA[l], p.Wv[l*kv*d:(l+1)*kv*d], N, kv, d)
		n.rope(n.q[l], d, false)
		n.rope(n.k[l], kv, false)
		n.attention(l)
		linear(n.xMid[l], n.ao[l], p.Wo[l*d*d:(l+1)*d*d], N, d, d)
		addInto(n.xMid[l], x)

		rmsnormRows(n.xnF[l], n.rF[l], n.xMid[l], p.RMSFFN[l*d:(l+1)*d], d)
		linear(n.h1[l], n.xnF[l], p.W1[l*hid*d:(l+1)*hid*d], N, hid, d)
		linear(n.h3[l], n.xnF[l], p.W3[l*hid*d:(l+1)*hid*d], N, hid, d)
		swigluRows(n.g[l], n.h1[l], n.h3[l])
		linear(n.xIn[l+1], n.g[l], p.W2[l*d*hid:(l+1)*d*hid], N, d, hid)
		addInto(n.xIn[l+1], n.xMid[l])
	}
	rmsnormRows(n.xf, n.rFinal, n.xIn[L], p.RMSFinal, d)
	linear(n.logits, n.xf, p.Emb, N, V, d)
	return n.crossEntropy()
}

// crossEntropy turns each row of logits into probabilities (in place) and
// records -log p(target).
func (n *net) crossEntropy() (float64, int) {
	V := n.p.Config.VocabSize
	forRows(n.N, func(r0, r1 int) {
		for i := r0; i < r1; i++ {
			z := n.logits[i*V : (i+1)*V]
			mx := z[0]
			for _, v := range z {
				mx = max(mx, v)
			}
			var sum float64
			for _, v := range z {
				sum += expf(float64(v - mx))
			}
			lse := float64(mx) + math.Log(sum)
			n.rowNLL[i] = 0
			if t := n.targets[i]; t >= 0 {
				n.rowNLL[i] = lse - float64(z[t])
			}
			for j, v := range z {
				z[j] = float32(expf(float64(v) - lse))
			}
		}
	})
	var total float64
	n.counted = 0
	for i, t := range n.targets {
		if t >= 0 {
			total += n.rowNLL[i]
			n.counted++
		}
	}
	if n.counted == 0 {
		return 0, 0
	}
	return total / float64(n.counted), n.counted
}

// rmsnormRows normalises each row of x (width d) to unit root mean square,
// times the gain w, exactly as the engine does, and keeps 1/rms per row.
func rmsnormRows(out, inv, x, w []float32, d int) {
	forRows(len(inv), func(r0, r1 int) {
		for r := r0; r < r1; r++ {
			row := x[r*d : (r+1)*d]
			var ss float32
			for _, v := range row {
				ss += v * v
			}
			ss /= float32(d)
			ss += rmsEps
			s := float32(1 / math.Sqrt(float64(ss)))
			inv[r] = s
			o := out[r*d : (r+1)*d]
			for i, v := range row {
				o[i] = w[i] * (s * v)
			}
		}
	})
}

// rope rotates every head of every row (width cols) by its position's
// angles; inverse rotates the other way, which is the backward pass.
func (n *net) rope(m []float32, cols int, inverse bool) {
	hs := n.p.Config.HeadSize()
	forRows(n.N, func(r0, r1 int) {
		for r := r0; r < r1; r++ {
			pos := r % n.T
			cs, sn := n.cos[pos*hs/2:(pos+1)*hs/2], n.sin[pos*hs/2:(pos+1)*hs/2]
			row := m[r*cols : (r+1)*cols]
			for i := 0; i < cols; i += 2 {
				j := (i % hs) / 2
				c, s := cs[j], sn[j]
				if inverse {
					s = -s
				}
				a, b := row[i], row[i+1]
				row[i] = a*c - b*s
				row[i+1] = a*s + b*c
			}
		}
	})
}

// attention computes causal softmax(Q·Kᵀ/√head_size)·V for every sequence
// and query head, one (sequence, head) pair per task; query head h reads
// key/value head h/kv_mul.
func (n *net) attention(l int) {
	c := n.p.Config
	T, d, kv, hs, H := n.T, c.Dim, c.KVDim(), c.HeadSize(), c.NHeads
	scale := float32(1 / math.Sqrt(float64(hs)))
	q, k, v, att, ao := n.q[l], n.k[l], n.v[l], n.att[l], n.ao[l]
	forEach(n.B*H, func(task int) {
		b, h := task/H, task%H
		kh := h / c.KVMul()
		Q := q[b*T*d+h*hs:]
		K := k[b*T*kv+kh*hs:]
		Vv := v[b*T*kv+kh*hs:]
		P := att[(b*H+h)*T*T : (b*H+h+1)*T*T]
		// Query t sees keys 0..t, so a band of queries r0..r1 needs only
		// the first r1 keys: the products skip the zeros above the diagonal.
		for r0 := 0; r0 < T; r0 += causalBand {
			r1 := min(r0+causalBand, T)
			simd.Gemm(false, true, r1-r0, r1, hs, scale, Q[r0*d:], d, K, kv, 0, P[r0*T:], T)
			for t := r0; t < r1; t++ {
				row := P[t*T : (t+1)*T]
				softmaxCausal(row[:t+1])
				clear(row[t+1 : r1]) // columns past r1 are never read
			}
			simd.Gemm(false, false, r1-r0, hs, r1, 1, P[r0*T:], T, Vv, kv, 0, ao[b*T*d+h*hs+r0*d:], d)
		}
	})
}

// causalBand is how many query rows attention handles at a time: small
// enough that little of the upper triangle is computed, large enough for
// the product kernel to run at full speed.
const causalBand = 64

// softmaxCausal is a float32 softmax, in place.
func softmaxCausal(x []float32) {
	mx := x[0]
	for _, v := range x[1:] {
		mx = max(mx, v)
	}
	inv := 1 / expShifted(x, mx)
	for i := range x {
		x[i] *= inv
	}
}

// swigluRows computes g = silu(h1)·h3 elementwise, as the engine does.
func swigluRows(g, h1, h3 []float32) {
	forRows(len(g), func(r0, r1 int) {
		for i := r0; i < r1; i++ {
			a := h1[i]
			g[i] = a * float32(sigmoid(float64(a))) * h3[i]
		}
	})
}

// addInto adds y into x.
func addInto(x, y []float32) {
	for i := range x {
		x[i] += y[i]
	}
}
