package ggml

import "golang.org/x/sys/cpu"

// useAVX2 says whether the kernels of this package's assembly run:
// AVX2, FMA and F16C. Tests switch it off to compare with the Go loops.
var useAVX2 = hasAVX2

// hasAVX2 says whether this CPU (and its operating system) runs them.
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA && hasF16C()

// useAVX512 says whether the kernels on 512-bit registers run too
// (AVX-512 F and VL); hasAVX512 whether this CPU runs them.
var (
	useAVX512 = hasAVX512
	hasAVX512 = hasAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL
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

// swiglu8 is swigluGo on n groups of 8 numbers.
//
//go:noescape
func swiglu8(n int, gate, up *float32)

// vexp8 sets dst[i] = VExp(src[i]) for n groups of 8 numbers.
//
//go:noescape
func vexp8(n int, dst, src *float32)

// rotate8 is Rotate on n groups of 8 numbers of one head (rope.go).
//
//go:noescape
func rotate8(n int, x, cs *float32)
