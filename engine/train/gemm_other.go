//go:build !amd64

package train

// haveKernel is false: on this architecture every product goes through gonum.
const haveKernel = false

func kernel4x16(k int, a *float32, aRow, aStep int, b *float32, ldb int, c *float32, ldc int, alpha float32) {
	panic("train: kernel4x16 is only available on amd64")
}
