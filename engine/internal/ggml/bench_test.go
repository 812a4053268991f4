package ggml

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tokenbytoken/course/engine/internal/f16"
)

// BenchmarkAttendTiled is one head's attention for the last rows of a
// prompt by tiles (AttendTiled), as a prefill or the rest of a prompt
// after a prefix cache's blocks computes it: rows new positions over a
// cache of positions, with the kernels and with the Go loops. One op is
// one head.
func BenchmarkAttendTiled(b *testing.B) {
	const hs = 64
	for _, c := range []struct{ rows, positions int }{{40, 1300}, {64, 512}} {
		rng := rand.New(rand.NewPCG(1, 2))
		n := c.positions
		x := make([]float32, n*hs)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		keys, values := make([]uint16, n*hs), make([]uint16, n*hs)
		f16.Encode(keys, x)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		f16.Encode(values, x)
		q := make([]float32, c.rows*hs)
		for i := range q {
			q[i] = float32(rng.NormFloat64())
		}
		out := make([]float32, c.rows*hs)
		for _, kernels := range []bool{true, false} {
			if kernels && !hasAVX2 {
				continue
			}
			name := map[bool]string{true: "kernels", false: "go"}[kernels]
			b.Run(fmt.Sprintf("%dx%d/%s", c.rows, n, name), func(b *testing.B) {
				defer func(was bool) { useAVX2 = was }(useAVX2)
				useAVX2 = kernels
				var s Scratch
				for b.Loop() {
					AttendTiled(out, hs, q, hs, hs, c.rows, n-c.rows, keys, values, hs, 0.125, &s)
				}
			})
		}
	}
}

// BenchmarkAttendHeads is a decoding step's attention for the 3 query
// heads of one key/value head over a cache of 128 and 1,024 positions:
// summed side by side (AttendHeadsPages, with AVX-512) and one head at a
// time (AttendPages). One op is the 3 heads.
func BenchmarkAttendHeads(b *testing.B) {
	const hs, heads = 64, 3
	for _, n := range []int{128, 1024} {
		rng := rand.New(rand.NewPCG(3, 4))
		x := make([]float32, n*hs)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		keys, values := make([]uint16, n*hs), make([]uint16, n*hs)
		f16.Encode(keys, x)
		f16.Encode(values, x)
		q := make([]float32, heads*hs)
		for i := range q {
			q[i] = float32(rng.NormFloat64())
		}
		out := make([]float32, heads*hs)
		var s Scratch
		kv := s.onePage(keys, values, hs, n)
		for _, together := range []bool{true, false} {
			if together && !hasAVX512 {
				continue
			}
			name := map[bool]string{true: "together", false: "one-by-one"}[together]
			b.Run(fmt.Sprintf("%d/%s", n, name), func(b *testing.B) {
				for b.Loop() {
					if together {
						AttendHeadsPages(out, q, heads, &kv, n, 0.125, &s)
						continue
					}
					for h := range heads {
						AttendPages(out[h*hs:(h+1)*hs], q[h*hs:(h+1)*hs], &kv, n, 0.125, &s)
					}
				}
			})
		}
	}
}
