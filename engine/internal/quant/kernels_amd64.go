package quant

import "golang.org/x/sys/cpu"

// useAVX2 says whether the products use the AVX2 kernels (with FMA and
// F16C), and useVNNI whether they use the AVX-512 VNNI ones where there
// are some. Tests switch them off to compare.
var (
	useAVX2 = hasAVX2
	useVNNI = hasVNNI
)

// hasAVX2 and hasVNNI say what this CPU (and its operating system) runs.
var (
	hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA && hasF16C()
	hasVNNI = hasAVX2 && cpu.X86.HasAVX512VNNI && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512BW
)

// hasF16C reports whether the CPU converts between f16 and float32
// (VCVTPH2PS), which golang.org/x/sys/cpu does not say: bit 29 of ECX
// for CPUID leaf 1.
func hasF16C() bool {
	_, _, c, _ := cpuid(1, 0)
	return c&(1<<29) != 0
}

//go:noescape
func cpuid(leaf, sub uint32) (a, b, c, d uint32)

// The Q4_0, Q4_1 and Q8_0 products of groups of 4 rows with one input
// (see q32_amd64.s).

//go:noescape
func q41VecVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)

//go:noescape
func q41VecAVX2(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)

//go:noescape
func q40VecVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)

//go:noescape
func q40VecAVX2(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)

//go:noescape
func q80VecVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)

//go:noescape
func q80VecAVX2(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)

// The same products with 4 inputs at once (see q32batch_amd64.s), with
// AVX-512 VNNI.

//go:noescape
func q41BatchVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, stride int, out *float32, ldo int)

//go:noescape
func q40BatchVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, stride int, out *float32, ldo int)

//go:noescape
func q80BatchVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, stride int, out *float32, ldo int)

// The K-quant products with one input, a row at a time (see
// kquant_amd64.s), with AVX2.

//go:noescape
func q4kVecAVX2(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32)

//go:noescape
func q5kVecAVX2(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32)

//go:noescape
func q6kVecAVX2(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32)

// The same with AVX-512 VNNI, which scales and adds in one instruction.

//go:noescape
func q4kVecVNNI(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32)

//go:noescape
func q5kVecVNNI(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32)

//go:noescape
func q6kVecVNNI(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32)

// The F16 and BF16 products with one input, a row at a time (see
// float_amd64.s), with AVX2.

//go:noescape
func f16VecAVX2(rows, n int, w *byte, stride int, x *float32, out *float32)

//go:noescape
func bf16VecAVX2(rows, n int, w *byte, stride int, x *float32, out *float32)

// Quantizing inputs (see vec_amd64.s), with AVX2.

//go:noescape
func quantPairsAVX2(pairs int, x *float32, q *int8, d, s *float32, sum *int32)

//go:noescape
func quantSupersAVX2(supers int, x *float32, q *int8, d *float32, bsum *int16)

// The same products with 8 inputs at once (see q32eight_amd64.s), with
// AVX-512 VNNI on 512-bit registers, the inputs laid out by
// Vec.gatherOctets.

//go:noescape
func q41EightVNNI(groups, pairs int, w *byte, x *int8, d *float32, aux *byte, out *float32, ldo int)

//go:noescape
func q40EightVNNI(groups, pairs int, w *byte, x *int8, d *float32, aux *byte, out *float32, ldo int)

//go:noescape
func q80EightVNNI(groups, pairs int, w *byte, x *int8, d *float32, aux *byte, out *float32, ldo int)
