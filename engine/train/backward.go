package train

import (
	"math"

	"github.com/tokenbytoken/course/engine/internal/simd"
)

// backwardBuffers are the gradients of the activations, reused across
// steps.
type backwardBuffers struct {
	dx, dxn, dq, dao []float32 // (N, dim)
	dk, dv           []float32 // (N, kv_dim)
	dh1, dh3, dg     []float32 // (N, hidden)
	dP               [][]float32
}

// backward computes the gradient of the mean loss of the last forward pass
// with respect to every parameter and stores it in grad (overwriting it).
// It undoes forward step by step, in reverse order; for each step
// y = f(x, w) it turns dL/dy into dL/dx and dL/dw.
func (n *net) backward(grad *Params) {
	p, c := n.p, n.p.Config
	L, d, hid, kv, V, N := c.NLayers, c.Dim, c.HiddenDim, c.KVDim(), c.VocabSize, n.N
	if n.grads == nil {
		b := &backwardBuffers{
			dx: make([]float32, N*d), dxn: make([]float32, N*d), dq: make([]float32, N*d), dao: make([]float32, N*d),
			dk: make([]float32, N*kv), dv: make([]float32, N*kv),
			dh1: make([]float32, N*hid), dh3: make([]float32, N*hid), dg: make([]float32, N*hid),
		}
		for range n.B * c.NKVHeads {
			b.dP = append(b.dP, make([]float32, n.T*n.T))
		}
		n.grads = b
	}
	bb := n.grads
	clear(grad.Data)
	g := grad

	// Cross-entropy: dL/dlogits = (p - onehot(target)) / rows, in place.
	dlogits := n.logits
	inv := float32(1 / float64(max(n.counted, 1)))
	forRows(N, func(r0, r1 int) {
		for i := r0; i < r1; i++ {
			row := dlogits[i*V : (i+1)*V]
			t := n.targets[i]
			if t < 0 {
				clear(row)
				continue
			}
			for j := range row {
				row[j] *= inv
			}
			row[t] -= inv
		}
	})
	// logits = xf·Embᵀ (the shared classifier).
	linearBackward(bb.dxn, g.Emb, dlogits, n.xf, p.Emb, N, V, d, false)
	clear(bb.dx)
	rmsnormBackward(bb.dx, g.RMSFinal, bb.dxn, n.xIn[L], n.rFinal, p.RMSFinal, d)

	for l := L - 1; l >= 0; l-- {
		// MLP: xIn[l+1] = xMid + W2·(silu(W1·xn)·(W3·xn)), xn = rmsnorm(xMid).
		// bb.dx holds dL/dxIn[l+1], which is also the residual's share of dL/dxMid.
		linearBackward(bb.dg, g.W2[l*d*hid:(l+1)*d*hid], bb.dx, n.g[l], p.W2[l*d*hid:(l+1)*d*hid], N, d, hid, false)
		swigluBackward(bb.dh1, bb.dh3, bb.dg, n.h1[l], n.h3[l])
		linearBackward(bb.dxn, g.W1[l*hid*d:(l+1)*hid*d], bb.dh1, n.xnF[l], p.W1[l*hid*d:(l+1)*hid*d], N, hid, d, false)
		linearBackward(bb.dxn, g.W3[l*hid*d:(l+1)*hid*d], bb.dh3, n.xnF[l], p.W3[l*hid*d:(l+1)*hid*d], N, hid, d, true)
		rmsnormBackward(bb.dx, g.RMSFFN[l*d:(l+1)*d], bb.dxn, n.xMid[l], n.rF[l], p.RMSFFN[l*d:(l+1)*d], d)

		// Attention: xMid = xIn + Wo·attention(rope(Wq·xn), rope(Wk·xn), Wv·xn).
		linearBackward(bb.dao, g.Wo[l*d*d:(l+1)*d*d], bb.dx, n.ao[l], p.Wo[l*d*d:(l+1)*d*d], N, d, d, false)
		n.attentionBackward(l)
		n.rope(bb.dq, d, true)
		n.rope(bb.dk, kv, true)
		linearBackward(bb.dxn, g.Wq[l*d*d:(l+1)*d*d], bb.dq, n.xnA[l], p.Wq[l*d*d:(l+1)*d*d], N, d, d, false)
		linearBackward(bb.dxn, g.Wk[l*kv*d:(l+1)*kv*d], bb.dk, n.xnA[l], p.Wk[l*kv*d:(l+1)*kv*d], N, kv, d, true)
		linearBackward(bb.dxn, g.Wv[l*kv*d:(l+1)*kv*d], bb.dv, n.xnA[l], p.Wv[l*kv*d:(l+1)*kv*d], N, kv, d, true)
		rmsnormBackward(bb.dx, g.RMSAtt[l*d:(l+1)*d], bb.dxn, n.xIn[l], n.rA[l], p.RMSAtt[l*d:(l+1)*d], d)
	}
	// Embedding lookup: each row's gradient goes to its token's row.
	for i, t := range n.tokens {
		addInto(g.Emb[int(t)*d:int(t+1)*d], bb.dx[i*d:(i+1)*d])
	}
}

// rmsnormBackward adds into dx the gradient through y = w·x·r, r =
// 1/√(mean(x²)+ε):
//
//	dx_j += r·w_j·dy_j − x_j·r³/d · Σ_k w_k·dy_k·x_k
//
// and adds Σ_rows dy·x·r into dw.
func rmsnormBackward(dx, dw, dy, x, inv, w []float32, d int) {
	rows := len(inv)
	forRows(rows, func(r0, r1 int) {
		for r := r0; r < r1; r++ {
			xr, dyr, dxr := x[r*d:(r+1)*d], dy[r*d:(r+1)*d], dx[r*d:(r+1)*d]
			s := inv[r]
			var dot float32
			for j := range xr {
				dot += w[j] * dyr[j] * xr[j]
			}
			coef := s * s * s * dot / float32(d)
			for j := range xr {
				dxr[j] += s*w[j]*dyr[j] - xr[j]*coef
			}
		}
	})
	// The gain's gradient sums over rows; done in one goroutine so the
	// order of the sum, and so the result, is always the same.
	for r := range rows {
		xr, dyr, s := x[r*d:(r+1)*d], dy[r*d:(r+1)*d], inv[r]
		for j := range dw[:d] {
			dw[j] += dyr[j] * xr[j] * s
		}
	}
}

// swigluBackward computes the gradients of g = silu(h1)·h3:
// dh3 = dg·silu(h1) and dh1 = dg·h3·σ(h1)·(1 + h1·(1−σ(h1))).
func swigluBackward(dh1, dh3, dg, h1, h3 []float32) {
	forRows(len(dg), func(r0, r1 int) {
		for i := r0; i < r1; i++ {
			a := float64(h1[i])
			sig := sigmoid(a)
			dh3[i] = dg[i] * float32(a*sig)
			dh1[i] = dg[i] * h3[i] * float32(sig*(1+a*(1-sig)))
		}
	})
}

// attentionBackward turns dL/d(attention output) into the gradients of the
// rotated queries, keys and values. Tasks are (sequence, key/value head)
// pairs, so the query heads that share a key/value head add into its
// gradient in one goroutine, in a fixed order.
//
// With S = Q·Kᵀ·scale, P = softmax(S) (causal) and O = P·V:
//
//	dP = dO·Vᵀ, dV += Pᵀ·dO, dS = P ⊙ (dP − rowsum(dP ⊙ P)),
//	dQ = dS·K·scale, dK += dSᵀ·Q·scale.
func (n *net) attentionBackward(l int) {
	c := n.p.Config
	T, d, kv, hs, H, KVH := n.T, c.Dim, c.KVDim(), c.HeadSize(), c.NHeads, c.NKVHeads
	scale := float32(1 / math.Sqrt(float64(hs)))
	bb := n.grads
	q, k, v, att := n.q[l], n.k[l], n.v[l], n.att[l]
	forEach(n.B*KVH, func(task int) {
		b, kh := task/KVH, task%KVH
		dP := bb.dP[task]
		K, Vv := k[b*T*kv+kh*hs:], v[b*T*kv+kh*hs:]
		dK, dV := bb.dk[b*T*kv+kh*hs:], bb.dv[b*T*kv+kh*hs:]
		for t := range T {
			clear(dK[t*kv : t*kv+hs])
			clear(dV[t*kv : t*kv+hs])
		}
		for h := kh * c.KVMul(); h < (kh+1)*c.KVMul(); h++ {
			P := att[(b*H+h)*T*T : (b*H+h+1)*T*T]
			dO := bb.dao[b*T*d+h*hs:]
			Q, dQ := q[b*T*d+h*hs:], bb.dq[b*T*d+h*hs:]
			// P and dP are zero above the diagonal, so each band of rows
			// (queries r0..r1) reads only the first r1 keys, and each band
			// of columns (keys c0..c1) only the queries from c0 on.
			for r0 := 0; r0 < T; r0 += causalBand {
				r1 := min(r0+causalBand, T)
				simd.Gemm(false, true, r1-r0, r1, hs, 1, dO[r0*d:], d, Vv, kv, 0, dP[r0*T:], T)
				for t := r0; t < r1; t++ {
					pr, dr := P[t*T:t*T+t+1], dP[t*T:(t+1)*T]
					var s float32
					for j, pv := range pr {
						s += pv * dr[j]
					}
					for j, pv := range pr {
						dr[j] = pv * (dr[j] - s)
					}
					clear(dr[t+1 : r1])
				}
				simd.Gemm(false, false, r1-r0, hs, r1, scale, dP[r0*T:], T, K, kv, 0, dQ[r0*d:], d)
			}
			for c0 := 0; c0 < T; c0 += causalBand {
				c1 := min(c0+causalBand, T)
				simd.Gemm(true, false, c1-c0, hs, T-c0, 1, P[c0*T+c0:], T, dO[c0*d:], d, 1, dV[c0*kv:], kv)
				simd.Gemm(true, false, c1-c0, hs, T-c0, scale, dP[c0*T+c0:], T, Q[c0*d:], d, 1, dK[c0*kv:], kv)
			}
		}
	})
}
