//go:build !amd64

package ggml

// Without kernels for this architecture, everything is in Go.
var (
	useAVX2   = false
	hasAVX2   = false
	useAVX512 = false
	hasAVX512 = false
)

func swiglu8(n int, gate, up *float32) { panic("ggml: no kernels on this architecture") }

func vexp8(n int, dst, src *float32) { panic("ggml: no kernels on this architecture") }

func attendAVX2(out []float32, kv *Pages, n int, scale float32, s *Scratch) {
	panic("ggml: no kernels on this architecture")
}

func expAll(x []float32) {
	for i := range x {
		x[i] = Exp(x[i])
	}
}

func scoresF16(n, hs int, keys *uint16, stride int, q *float32, scale float32, out *float32) {
	panic("ggml: no kernels on this architecture")
}

func accumF16(n, hs int, values *uint16, stride int, e *float32, steps *uint8, acc *float32, sum float32) float32 {
	panic("ggml: no kernels on this architecture")
}

func expf4(n int, x *float32, tab *uint64) { panic("ggml: no kernels on this architecture") }

func tileKQ(hs int, q, kt *float32, scale float32, out *float32) {
	panic("ggml: no kernels on this architecture")
}

func tileV(hs int, w, vt, acc *float32) { panic("ggml: no kernels on this architecture") }

func attendTiledAVX2(out []float32, ldo int, q []float32, ldq int, hs, rows, first int, kv *Pages, scale float32, s *Scratch) {
	panic("ggml: no kernels on this architecture")
}

func rotate8(n int, x, cs *float32) { panic("ggml: no kernels on this architecture") }

func attendHeadsAVX512(out, q []float32, heads int, kv *Pages, n int, scale float32, s *Scratch) {
	panic("ggml: no kernels on this architecture")
}
