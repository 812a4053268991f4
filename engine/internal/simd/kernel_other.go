//go:build !amd64

package simd

// Available is false: on this architecture the callers use gonum.
const Available = false

var wide = false

func kernel4x16(k int, a *float32, aRow, aStep int, b *float32, ldb int, c *float32, ldc int, alpha float32) {
	panic("simd: no kernels on this architecture")
}

func dot4(n int, x *float32, w *float32, ldw int, out *float32) {
	panic("simd: no kernels on this architecture")
}

func kernel4x32(k int, a *float32, aRow, aStep int, b *float32, ldb int, c *float32, ldc int, alpha float32) {
	panic("simd: no kernels on this architecture")
}

func scores8(blocks, hs int, q, keys *float32, stride int, scale float32, out *float32) {
	panic("simd: no kernels on this architecture")
}

func weightedSum8(n, hs int, w, values *float32, stride int, out *float32) {
	panic("simd: no kernels on this architecture")
}

func expSum8(n int, x *float32, m float32) float32 {
	panic("simd: no kernels on this architecture")
}

func sumExp8(n int, x *float32, m float32) float64 {
	panic("simd: no kernels on this architecture")
}

func swiglu8(n int, gate, up *float32) {
	panic("simd: no kernels on this architecture")
}

func max8(n int, x *float32) float32 {
	panic("simd: no kernels on this architecture")
}

func finite16(n int, x *float32) bool {
	panic("simd: no kernels on this architecture")
}

func dot3x4(groups, n int, x *float32, ldx int, w *float32, ldw int, c *float32, ldc int, alpha float32, next *float32) {
	panic("simd: no kernels on this architecture")
}

func dot1x4(n int, x *float32, w *float32, ldw int, c *float32, alpha float32) {
	panic("simd: no kernels on this architecture")
}
