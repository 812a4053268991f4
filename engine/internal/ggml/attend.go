package ggml

import (
	"fmt"
	"math"

	"github.com/tokenbytoken/course/engine/internal/f16"
)

// DotF16 returns x·y for f16 vectors of the same length, as llama.cpp's
// ggml_vec_dot_f16 sums it (AVX-512, without its f16 arithmetic): the
// numbers in steps of 64, each step's 16·j + l-th product fused into
// accumulator j's lane l; the four accumulators added as (a₀ + a₂) +
// (a₁ + a₃); their 16 lanes as _mm512_reduce_add_ps adds them (the upper
// 8 to the lower 8, then 4, 2, 1); the numbers after the last whole step
// added one by one in float64. It panics unless the lengths are the same.
func DotF16(x, y []uint16) float32 {
	if len(x) != len(y) {
		panic("ggml: DotF16 of vectors of different lengths")
	}
	var acc [4][16]float32
	np := len(x) &^ 63
	for i := 0; i < np; i += 64 {
		for j := range 4 {
			for l := range 16 {
				k := i + 16*j + l
				acc[j][l] = FMA32(f16.ToFloat32(x[k]), f16.ToFloat32(y[k]), acc[j][l])
			}
		}
	}
	var a [16]float32
	for l := range a {
		a[l] = (acc[0][l] + acc[2][l]) + (acc[1][l] + acc[3][l])
	}
	sum := float64(reduce16(&a))
	for i := np; i < len(x); i++ {
		sum += float64(f16.ToFloat32(x[i]) * f16.ToFloat32(y[i])) // exact: 11 + 11 bits
	}
	return float32(sum)
}

// reduce16 adds 16 numbers as GCC's _mm512_reduce_add_ps does.
func reduce16(a *[16]float32) float32 {
	var t3 [8]float32
	for i := range t3 {
		t3[i] = a[8+i] + a[i]
	}
	var t6 [4]float32
	for i := range t6 {
		t6[i] = t3[4+i] + t3[i]
	}
	return (t6[0] + t6[2]) + (t6[1] + t6[3])
}

// expTile sets kq[j] = VExp(kq[j]) for a tile of TileKV numbers and
// returns their sum as llama.cpp's ggml_vec_soft_max_f32 adds them: 16 at
// a time as reduce16 adds them, those sums in float64.
func expTile(kq []float32) float64 {
	var sum float64
	for i := 0; i < TileKV; i += 16 {
		for l := range 16 {
			kq[i+l] = VExp(kq[i+l])
		}
		sum += float64(reduce16((*[16]float32)(kq[i:])))
	}
	return sum
}

// Scratch is working memory for Attend and AttendTiled, which grows to
// what the largest call needed and is reused. The zero Scratch is ready
// to use; a Scratch serves one call at a time.
type Scratch struct {
	q16    []uint16    // the query rounded to f16
	scores []float32   // a score, then its exponential, per position
	steps  []uint8     // whether each position raised the running maximum
	acc    []float32   // the output being summed, f16 numbers as float32
	ge     []float32   // AttendHeadsPages: the heads' scores, position by position
	gsteps []uint8     // and their steps
	qf     []float32   // the query in f16, as float32
	kt, vt []float32   // a tile of keys, transposed, and of values, float32
	row    []float32   // a key, float32
	m, sum []float32   // each query's running maximum and sum of weights
	one    [2][]uint16 // the one page of Attend's and AttendTiled's keys and values
}

// Pages are one key/value head's keys and values over a sequence's
// positions, cut into pages of Size positions each, as a paged KV cache
// keeps them: position t's key is Keys[t/Size][(t%Size)·Stride+Offset:]
// [:hs], and its value the same numbers of Values. A cache in one piece is
// one page.
type Pages struct {
	Keys, Values [][]uint16
	Size         int // positions a page
	Stride       int // numbers from one position to the next within a page
	Offset       int // where the head starts within a position
}

// key and value are position t's hs numbers.
func (p *Pages) key(t, hs int) []uint16 {
	return p.Keys[t/p.Size][t%p.Size*p.Stride+p.Offset:][:hs]
}

func (p *Pages) value(t, hs int) []uint16 {
	return p.Values[t/p.Size][t%p.Size*p.Stride+p.Offset:][:hs]
}

// page is the run of positions of page i below n: the first, how many,
// and where the head's first key and value are.
func (p *Pages) page(i, n, hs int) (first, count int, keys, values []uint16) {
	first = i * p.Size
	count = min(p.Size, n-first)
	at := p.Offset
	return first, count, p.Keys[i][at : at+(count-1)*p.Stride+hs], p.Values[i][at : at+(count-1)*p.Stride+hs]
}

// one is the Pages of keys and values in one piece, in s's headers.
func (s *Scratch) onePage(keys, values []uint16, stride, n int) Pages {
	s.one[0], s.one[1] = keys, values
	return Pages{Keys: s.one[0:1], Values: s.one[1:2], Size: max(n, 1), Stride: stride}
}

// grow returns s with length n, reusing its array if it is large enough.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// check panics unless kv's pages hold n positions of hs numbers and q
// and out hold hs numbers: the kernels read memory directly.
func check(fn string, outLen, qLen int, kv *Pages, n int) {
	hs := qLen
	switch {
	case outLen != hs:
		panic(fmt.Sprintf("ggml: %s into %d numbers for a head of %d", fn, outLen, hs))
	case n < 1 || kv.Size < 1 || kv.Offset < 0 || kv.Stride < kv.Offset+hs:
		panic(fmt.Sprintf("ggml: %s over %d positions in pages of %d at stride %d, offset %d, for a head of %d", fn, n, kv.Size, kv.Stride, kv.Offset, hs))
	}
	pages := (n + kv.Size - 1) / kv.Size
	if len(kv.Keys) < pages || len(kv.Values) < pages {
		panic(fmt.Sprintf("ggml: %s over %d positions in pages of %d: %d pages of keys and %d of values", fn, n, kv.Size, len(kv.Keys), len(kv.Values)))
	}
	for i := range pages {
		count := min(kv.Size, n-i*kv.Size)
		if need := kv.Offset + (count-1)*kv.Stride + hs; len(kv.Keys[i]) < need || len(kv.Values[i]) < need {
			panic(fmt.Sprintf("ggml: %s: page %d holds %d keys and %d values, not %d positions at stride %d", fn, i, len(kv.Keys[i]), len(kv.Values[i]), count, kv.Stride))
		}
	}
}

// Attend sets out to the attention of one query q over positions 0..n-1
// of one key/value head, as llama.cpp's flash attention computes it for a
// decoding step, or for each row of a batch of fewer than 64 tokens
// (ggml_compute_forward_flash_attn_ext_f16_one_chunk, with keys and
// values in f16): q is rounded to f16; position t's score is DotF16(k_t,
// q)·scale, k_t = keys[t·stride:][:len(q)]; then, with M the largest
// score so far (−∞ at first) and S the sum of weights,
//
//	a score above M:   M = score; out16 = f16(out16·Exp(M_old − M))
//	                   out16 = f16(v_t + out16); S = S·Exp(M_old − M) + 1
//	else:              w = Exp(score − M)
//	                   out16 = f16(v_t·w + out16); S = S + w
//
// each multiply-add fused, and out = out16·(1/S). It panics if the shapes
// do not fit.
func Attend(out, q []float32, keys, values []uint16, stride, n int, scale float32, s *Scratch) {
	kv := s.onePage(keys, values, stride, n)
	AttendPages(out, q, &kv, n, scale, s)
}

// AttendPages is Attend over the positions 0..n-1 of a paged cache: the
// same numbers, bit for bit, as Attend over the same keys and values in
// one piece.
func AttendPages(out, q []float32, kv *Pages, n int, scale float32, s *Scratch) {
	check("Attend", len(out), len(q), kv, n)
	hs := len(q)
	s.q16 = grow(s.q16, hs)
	f16.Encode(s.q16, q)
	s.scores = grow(s.scores, n)
	s.steps = grow(s.steps, n)
	s.acc = grow(s.acc, hs)
	if useAVX2 && hs%64 == 0 {
		attendAVX2(out, kv, n, scale, s)
		return
	}
	attendGo(out, kv, n, scale, s)
}

// AttendHeadsPages is AttendPages for heads query heads that share the
// key/value head kv (grouped-query attention): q and out hold the heads'
// queries and outputs one after another, and each head's output is what
// AttendPages gives it, bit for bit. On a CPU with AVX-512, 2 or 3 heads
// of a multiple of 64 numbers are summed together, which keeps the cores
// busier than one head's chain of roundings can.
func AttendHeadsPages(out, q []float32, heads int, kv *Pages, n int, scale float32, s *Scratch) {
	if heads < 1 || len(q)%heads != 0 || len(out) != len(q) {
		panic(fmt.Sprintf("ggml: AttendHeadsPages of %d heads in %d numbers, into %d", heads, len(q), len(out)))
	}
	hs := len(q) / heads
	if !useAVX512 || !useAVX2 || hs%64 != 0 || heads < 2 || heads > 3 {
		for h := range heads {
			AttendPages(out[h*hs:(h+1)*hs], q[h*hs:(h+1)*hs], kv, n, scale, s)
		}
		return
	}
	check("AttendHeadsPages", hs, hs, kv, n)
	s.q16 = grow(s.q16, hs)
	attendHeadsAVX512(out, q, heads, kv, n, scale, s)
}

// attendGo is Attend in plain Go, s holding the query in f16.
func attendGo(out []float32, kv *Pages, n int, scale float32, s *Scratch) {
	hs := len(out)
	acc := s.acc
	clear(acc)
	m, sum := float32(math.Inf(-1)), float32(0)
	for t := range n {
		score := DotF16(kv.key(t, hs), s.q16) * scale
		ms, vs := float32(1), float32(1)
		if score > m {
			ms = Exp(m - score)
			m = score
			for i := range acc {
				acc[i] = f16.Round(acc[i] * ms)
			}
		} else {
			vs = Exp(score - m)
		}
		v := kv.value(t, hs)
		for i := range acc {
			acc[i] = f16.Round(FMA32(f16.ToFloat32(v[i]), vs, acc[i]))
		}
		sum = FMA32(sum, ms, vs)
	}
	finish(out, acc, sum)
}

// finish sets out = acc/sum (0 for a sum of 0), as llama.cpp does: acc
// times the float32 inverse of sum.
func finish(out, acc []float32, sum float32) {
	var inv float32
	if sum != 0 {
		inv = 1 / sum
	}
	for i := range out {
		out[i] = acc[i] * inv
	}
}

// TileRows is the least number of rows of a batch for which llama.cpp
// computes attention by tiles (AttendTiled), and TileKV the positions of
// a tile.
const (
	TileRows = 64
	TileKV   = 64
)

// AttendTiled sets the outputs of rows queries of one head of hs numbers,
// as llama.cpp's flash attention computes them for a batch of TileRows
// tokens or more (ggml_compute_forward_flash_attn_ext_tiled): query r,
// q[r·ldq:][:hs],
// is at position first+r and sees positions 0..first+r, whose keys and
// values are keys[t·stride:][:hs] and values[t·stride:][:hs]; its output
// goes to out[r·ldo:][:hs]. For each query, the positions go by tiles of
// TileKV from 0, those past the query's own masked (−∞); in each tile
//
//	scores   kq_j = (Σ_d q_d·k_{t,d})·scale, the sum by fused multiply-
//	         adds in order of d, from 0, in float32 (q is not rounded)
//	maximum  M' = max(M, max_j kq_j); if M' > M, out and S are
//	         multiplied by Exp(M − M')
//	weights  w_j = VExp(kq_j − M'); S += their sum (16 at a time as
//	         reduce16 adds them, the four sums in float64)
//	values   out_d = out_d + Σ_j w_j·v_{t,d}, fused in order of j
//
// and the output is out/S. It panics if the shapes do not fit.
func AttendTiled(out []float32, ldo int, q []float32, ldq int, hs, rows, first int, keys, values []uint16, stride int, scale float32, s *Scratch) {
	kv := s.onePage(keys, values, stride, first+rows)
	AttendTiledPages(out, ldo, q, ldq, hs, rows, first, &kv, scale, s)
}

// AttendTiledPages is AttendTiled over a paged cache: the same numbers,
// bit for bit, as AttendTiled over the same keys and values in one piece.
func AttendTiledPages(out []float32, ldo int, q []float32, ldq int, hs, rows, first int, kv *Pages, scale float32, s *Scratch) {
	if rows < 1 || first < 0 || hs < 1 || ldq < hs || ldo < hs {
		panic(fmt.Sprintf("ggml: AttendTiled of %d rows of %d from position %d, at %d and %d a row", rows, hs, first, ldq, ldo))
	}
	if len(q) < (rows-1)*ldq+hs || len(out) < (rows-1)*ldo+hs {
		panic(fmt.Sprintf("ggml: AttendTiled of %d rows: %d query numbers at %d a row, %d outputs at %d", rows, len(q), ldq, len(out), ldo))
	}
	n := first + rows // the positions there are
	check("AttendTiled", hs, hs, kv, n)
	if useAVX2 && hs%64 == 0 {
		attendTiledAVX2(out, ldo, q, ldq, hs, rows, first, kv, scale, s)
		return
	}
	s.acc = grow(s.acc, hs)
	s.scores = grow(s.scores, TileKV)
	for r := range rows {
		p := first + r
		qr, acc, kq := q[r*ldq:][:hs], s.acc, s.scores
		clear(acc)
		m, sum := float32(math.Inf(-1)), float32(0)
		for c := 0; c <= p; c += TileKV {
			for j := range TileKV {
				var a float32
				if t := c + j; t < n {
					k := kv.key(t, hs)
					for d, qd := range qr {
						a = FMA32(qd, f16.ToFloat32(k[d]), a)
					}
				}
				a = float32(a * scale)
				if c+j > p {
					a += float32(math.Inf(-1))
				}
				kq[j] = a
			}
			tileMax := float32(math.Inf(-1))
			for _, a := range kq {
				if a > tileMax {
					tileMax = a
				}
			}
			mNew := max(m, tileMax)
			if mNew > m {
				ms := Exp(m - mNew)
				for d := range acc {
					acc[d] *= ms
				}
				sum *= ms
			}
			m = mNew
			for j := range kq {
				kq[j] -= mNew
			}
			sum = float32(float64(sum) + expTile(kq))
			for j, w := range kq {
				if t := c + j; t < n {
					v := kv.value(t, hs)
					for d := range acc {
						acc[d] = FMA32(w, f16.ToFloat32(v[d]), acc[d])
					}
				}
			}
		}
		finish(out[r*ldo:][:hs], acc, sum)
	}
}
