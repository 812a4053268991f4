package ggml

// attendAVX2 is Attend with the kernels, for heads of a multiple of 64.
func attendAVX2(out []float32, keys, values []uint16, stride, n int, scale float32, s *Scratch) {
	attendGo(out, keys, values, stride, n, scale, s)
}
