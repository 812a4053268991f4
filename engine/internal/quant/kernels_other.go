//go:build !amd64

package quant

// Without kernels for this architecture, the products are in plain Go.
var (
	useAVX2 = false
	useVNNI = false
	hasAVX2 = false
	hasVNNI = false
)

func q41VecVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32) {
	panic("quant: no kernels on this architecture")
}

func q41VecAVX2(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32) {
	panic("quant: no kernels on this architecture")
}

func q40VecVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32) {
	panic("quant: no kernels on this architecture")
}

func q40VecAVX2(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32) {
	panic("quant: no kernels on this architecture")
}

func q80VecVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32) {
	panic("quant: no kernels on this architecture")
}

func q80VecAVX2(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32) {
	panic("quant: no kernels on this architecture")
}

func q41BatchVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, stride int, out *float32, ldo int) {
	panic("quant: no kernels on this architecture")
}

func q40BatchVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, stride int, out *float32, ldo int) {
	panic("quant: no kernels on this architecture")
}

func q80BatchVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, stride int, out *float32, ldo int) {
	panic("quant: no kernels on this architecture")
}

func q4kVecAVX2(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32) {
	panic("quant: no kernels on this architecture")
}

func q5kVecAVX2(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32) {
	panic("quant: no kernels on this architecture")
}

func q6kVecAVX2(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32) {
	panic("quant: no kernels on this architecture")
}

func f16VecAVX2(rows, n int, w *byte, stride int, x *float32, out *float32) {
	panic("quant: no kernels on this architecture")
}

func bf16VecAVX2(rows, n int, w *byte, stride int, x *float32, out *float32) {
	panic("quant: no kernels on this architecture")
}

func q4kVecVNNI(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32) {
	panic("quant: no kernels on this architecture")
}

func q5kVecVNNI(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32) {
	panic("quant: no kernels on this architecture")
}

func q6kVecVNNI(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32) {
	panic("quant: no kernels on this architecture")
}

func quantPairsAVX2(pairs int, x *float32, q *int8, d, s *float32, sum *int32) {
	panic("quant: no kernels on this architecture")
}

func quantSupersAVX2(supers int, x *float32, q *int8, d *float32, bsum *int16) {
	panic("quant: no kernels on this architecture")
}

func q41EightVNNI(groups, pairs int, w *byte, x *int8, d *float32, aux *byte, out *float32, ldo int) {
	panic("quant: no kernels on this architecture")
}

func q40EightVNNI(groups, pairs int, w *byte, x *int8, d *float32, aux *byte, out *float32, ldo int) {
	panic("quant: no kernels on this architecture")
}

func q80EightVNNI(groups, pairs int, w *byte, x *int8, d *float32, aux *byte, out *float32, ldo int) {
	panic("quant: no kernels on this architecture")
}
