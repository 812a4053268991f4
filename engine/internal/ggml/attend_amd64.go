package ggml

import (
	"math"

	"github.com/tokenbytoken/course/engine/internal/f16"
)

// scoresF16 sets out[t] = DotF16(k_t, q)·scale for t < n, k_t the hs f16
// numbers at keys + t·stride, q the query's f16 numbers as float32; hs is
// a multiple of 64 (attend_amd64.s).
//
//go:noescape
func scoresF16(n, hs int, keys *uint16, stride int, q *float32, scale float32, out *float32)

// accumF16 does Attend's sums over n positions (attend_amd64.s), adding
// to acc and to sum, the sum of the weights so far, which it returns; hs
// is a multiple of 64.
//
//go:noescape
func accumF16(n, hs int, values *uint16, stride int, e *float32, steps *uint8, acc *float32, sum float32) float32

// expf4 sets x[i] = Exp(x[i]) for i < 4n; tab is exp2Table.
//
//go:noescape
func expf4(n int, x *float32, tab *uint64)

// scores2F16 and scores3F16 are scoresF16 for 2 and 3 query heads that
// share a key/value head, with AVX-512 (attend_amd64.s): q head h's hs
// numbers (f16 as float32) at h·hs, out[h·ldo + t] its score for
// position t.
//
//go:noescape
func scores2F16(n, hs int, keys *uint16, stride int, q *float32, scale float32, out *float32, ldo int)

//go:noescape
func scores3F16(n, hs int, keys *uint16, stride int, q *float32, scale float32, out *float32, ldo int)

// accum2F16 and accum3F16 are accumF16 for 2 and 3 query heads that
// share a key/value head, with AVX-512 (attend_amd64.s): e and steps of
// head h for position t at t·heads + h, acc head h's hs numbers at h·hs,
// sums the heads' sums of weights, read and written.
//
//go:noescape
func accum2F16(n, hs int, values *uint16, stride int, e *float32, steps *uint8, acc *float32, sums *float32)

//go:noescape
func accum3F16(n, hs int, values *uint16, stride int, e *float32, steps *uint8, acc *float32, sums *float32)

// tileKQ sets out[j] = (Σ_d q[d]·kt[64d + j])·scale for j < 64, fused in
// order of d < hs.
//
//go:noescape
func tileKQ(hs int, q, kt *float32, scale float32, out *float32)

// tileMax returns the largest of x[0:64] that is not a NaN (−Inf if
// none), as a loop keeping m = x[j] when x[j] > m finds it, up to the sign
// of a largest zero.
//
//go:noescape
func tileMax(x *float32) float32

// tileV adds Σ_j w[j]·vt[j·hs + d], fused in order of j < 64, to acc[d]
// for d < hs, a multiple of 64.
//
//go:noescape
func tileV(hs int, w, vt, acc *float32)

// attendAVX2 is Attend with the kernels, for heads of a multiple of 64:
// the scores, then the running maximum and the exponents of Exp, then
// their exponentials, then the sums.
// A page at a time for the scores and for the sums, which carry the
// outputs and the sum of the weights from one page to the next.
func attendAVX2(out []float32, kv *Pages, n int, scale float32, s *Scratch) {
	hs := len(out)
	e, steps := weightsAVX2(kv, n, hs, scale, s)
	clear(s.acc)
	var sum float32
	for i := range (n + kv.Size - 1) / kv.Size {
		first, count, _, values := kv.page(i, n, hs)
		sum = accumF16(count, hs, &values[0], kv.Stride, &e[first], &steps[first], &s.acc[0], sum)
	}
	finish(out, s.acc, sum)
}

// weightsAVX2 is attendAVX2 up to the sums, for the query in s.q16: each
// position's score, then e and steps, whether it raised the running
// maximum and the exponential of the difference (s.scores and s.steps).
func weightsAVX2(kv *Pages, n, hs int, scale float32, s *Scratch) (e []float32, steps []uint8) {
	s.qf = grow(s.qf, hs)
	f16.Decode(s.qf, s.q16)
	e, steps = s.scores[:n], s.steps[:n]
	for i := range (n + kv.Size - 1) / kv.Size {
		first, count, keys, _ := kv.page(i, n, hs)
		scoresF16(count, hs, &keys[0], kv.Stride, &s.qf[0], scale, &e[first])
	}
	m := float32(math.Inf(-1))
	for t, score := range e {
		if score > m {
			e[t], steps[t], m = m-score, 1, score
		} else {
			e[t], steps[t] = score-m, 0
		}
	}
	expAll(e)
	return e, steps
}

// attendHeadsAVX512 is AttendHeadsPages for 2 or 3 heads of a multiple
// of 64 numbers, with the kernels: attendAVX2's steps for all the heads
// at once, each key and value converted once for them (scores2F16,
// scores3F16, accum2F16, accum3F16), the same bits as attendAVX2 gives
// each head.
func attendHeadsAVX512(out, q []float32, heads int, kv *Pages, n int, scale float32, s *Scratch) {
	hs := len(q) / heads
	s.qf = grow(s.qf, heads*hs)
	for h := range heads {
		f16.Encode(s.q16, q[h*hs:(h+1)*hs])
		f16.Decode(s.qf[h*hs:(h+1)*hs], s.q16)
	}
	scores := grow(s.scores, heads*n)
	s.scores = scores
	score, accum := scores2F16, accum2F16
	if heads == 3 {
		score, accum = scores3F16, accum3F16
	}
	pages := (n + kv.Size - 1) / kv.Size
	for i := range pages {
		first, count, keys, _ := kv.page(i, n, hs)
		score(count, hs, &keys[0], kv.Stride, &s.qf[0], scale, &scores[first], n)
	}
	// Position by position, each head's weight and step (see attendAVX2).
	e, steps := grow(s.ge, heads*n), grow(s.gsteps, heads*n)
	s.ge, s.gsteps = e, steps
	for h := range heads {
		m := float32(math.Inf(-1))
		for t, sc := range scores[h*n : (h+1)*n] {
			if sc > m {
				e[t*heads+h], steps[t*heads+h], m = m-sc, 1, sc
			} else {
				e[t*heads+h], steps[t*heads+h] = sc-m, 0
			}
		}
	}
	expAll(e)
	acc := grow(s.acc, heads*hs)
	s.acc = acc
	clear(acc)
	var sums [3]float32
	for i := range pages {
		first, count, _, values := kv.page(i, n, hs)
		accum(count, hs, &values[0], kv.Stride, &e[first*heads], &steps[first*heads], &acc[0], &sums[0])
	}
	for h := range heads {
		finish(out[h*hs:(h+1)*hs], acc[h*hs:(h+1)*hs], sums[h])
	}
}

// expAll sets x[i] = Exp(x[i]), 4 at a time with the kernel.
func expAll(x []float32) {
	i := len(x) &^ 3
	if i > 0 {
		expf4(i/4, &x[0], &exp2Table[0])
	}
	for ; i < len(x); i++ {
		x[i] = Exp(x[i])
	}
}

// attendTiledAVX2 is AttendTiled with the kernels, for heads of a
// multiple of 64. The tiles go in the outer loop, so that each is
// converted to float32 once (its keys transposed, for tileKQ) for all the
// queries that see it; each query's outputs, in out, are its sums until
// the end, and every query goes through the same operations as in the Go
// loop.
func attendTiledAVX2(out []float32, ldo int, q []float32, ldq int, hs, rows, first int, kv *Pages, scale float32, s *Scratch) {
	n := first + rows
	s.kt, s.vt = grow(s.kt, TileKV*hs), grow(s.vt, TileKV*hs)
	s.row, s.scores = grow(s.row, hs), grow(s.scores, TileKV)
	s.m, s.sum = grow(s.m, rows), grow(s.sum, rows)
	for r := range rows {
		clear(out[r*ldo:][:hs])
		s.m[r], s.sum[r] = float32(math.Inf(-1)), 0
	}
	kq := s.scores
	for c := 0; c < n; c += TileKV {
		for j := range TileKV {
			vt := s.vt[j*hs : (j+1)*hs]
			if t := c + j; t < n {
				f16.Decode(s.row, kv.key(t, hs))
				f16.Decode(vt, kv.value(t, hs))
			} else {
				clear(s.row)
				clear(vt)
			}
			for d, k := range s.row {
				s.kt[d*TileKV+j] = k
			}
		}
		for r := max(c-first, 0); r < rows; r++ {
			p, acc := first+r, out[r*ldo:][:hs]
			tileKQ(hs, &q[r*ldq], &s.kt[0], scale, &kq[0])
			for j := p - c + 1; j < TileKV; j++ {
				kq[j] += float32(math.Inf(-1))
			}
			m := s.m[r]
			mNew := max(m, tileMax(&kq[0]))
			if mNew > m {
				ms := Exp(m - mNew)
				for d := range acc {
					acc[d] *= ms
				}
				s.sum[r] *= ms
			}
			s.m[r] = mNew
			for j := range kq {
				kq[j] -= mNew
			}
			vexp8(TileKV/8, &kq[0], &kq[0])
			var tileSum float64
			for i := 0; i < TileKV; i += 16 {
				tileSum += float64(reduce16((*[16]float32)(kq[i:])))
			}
			s.sum[r] = float32(float64(s.sum[r]) + tileSum)
			tileV(hs, &kq[0], &s.vt[0], &acc[0])
		}
	}
	for r := range rows {
		acc := out[r*ldo:][:hs]
		finish(acc, acc, s.sum[r])
	}
}
