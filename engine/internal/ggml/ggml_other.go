//go:build !amd64

package ggml

// Without kernels for this architecture, everything is in Go.
var (
	useAVX2 = false
	hasAVX2 = false
)

func swiglu8(n int, gate, up *float32) { panic("ggml: no kernels on this architecture") }

func vexp8(n int, dst, src *float32) { panic("ggml: no kernels on this architecture") }

func attendAVX2(out []float32, keys, values []uint16, stride, n int, scale float32, s *Scratch) {
	panic("ggml: no kernels on this architecture")
}
