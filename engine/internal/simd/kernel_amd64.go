package simd

import "golang.org/x/sys/cpu"

// Available says whether this CPU runs the kernels (AVX2 with FMA).
var Available = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// wide says whether Gemm may use kernel4x32 (AVX-512, with the operating
// system saving its registers). Tests switch it off to compare.
var wide = Available && cpu.X86.HasAVX512F

// kernel4x16 adds alpha·A·B to a 4×16 block of C: for r in 0..3,
// C[r·ldc + 0:16] += alpha · Σ_{p<k} A[r·aRow + p·aStep] · B[p·ldb + 0:16].
// Strides are in elements. The caller guarantees every index is in range.
//
//go:noescape
func kernel4x16(k int, a *float32, aRow, aStep int, b *float32, ldb int, c *float32, ldc int, alpha float32)

// dot4 sets out[r] = Σ_{j<n} w[r·ldw + j]·x[j] for r in 0..3; n is at
// least 1. Each row is summed the same way whatever the other three are.
// The caller guarantees every index is in range.
//
//go:noescape
func dot4(n int, x *float32, w *float32, ldw int, out *float32)

// kernel4x32 is kernel4x16 for 32 columns, with AVX-512. Each element of C
// goes through the same operations in the same order, so the results are
// bit-identical to kernel4x16's.
//
//go:noescape
func kernel4x32(k int, a *float32, aRow, aStep int, b *float32, ldb int, c *float32, ldc int, alpha float32)

// scores8 sets out[t] = scale·Σ_{i<hs} q[i]·keys[t·stride + i] for t below
// 8·blocks; hs is a multiple of 8. The caller guarantees every index is in
// range.
//
//go:noescape
func scores8(blocks, hs int, q, keys *float32, stride int, scale float32, out *float32)

// weightedSum8 sets out[i] = Σ_{t<n} w[t]·values[t·stride + i] for i < hs,
// a multiple of 8. The caller guarantees every index is in range.
//
//go:noescape
func weightedSum8(n, hs int, w, values *float32, stride int, out *float32)

// expSum8 sets x[i] = exp(min(x[i]−m, 0)) for i < n, results below 2^-126
// set to 0, and returns their sum: ExpSum with the kernels. n is at least
// 1; the last n mod 8 numbers are read and written through a mask. The
// caller guarantees x holds n numbers.
//
//go:noescape
func expSum8(n int, x *float32, m float32) float32

// sumExp8 returns the sum of exp(min(x[i]−m, 0)) for i < n, each term
// computed as expSum8 computes it, leaving x as it is, summed in float64:
// SumExp with the kernels. n is at least 1; the caller guarantees x holds
// n numbers.
//
//go:noescape
func sumExp8(n int, x *float32, m float32) float64

// swiglu8 sets gate[i] = silu(gate[i])·up[i] for i < n: SwiGLU with the
// kernels. n is at least 1; the caller guarantees both hold n numbers.
//
//go:noescape
func swiglu8(n int, gate, up *float32)

// max8 returns the largest of x[0..n-1], or NaN if any is NaN: Max with
// the kernels. n is at least 1; the caller guarantees x holds n numbers.
//
//go:noescape
func max8(n int, x *float32) float32

// finite16 reports whether none of x[0..n-1] is NaN or infinite: Finite
// with the kernels. n is a positive multiple of 16; the caller guarantees
// x holds n numbers.
//
//go:noescape
func finite16(n int, x *float32) bool

// dot3x4 adds alpha times twelve dot products to c for each of groups
// groups of three rows of x: for t in 0..2 and r in 0..3,
// c[t·ldc + r] += alpha·Σ_{j<n} x[t·ldx + j]·w[r·ldw + j], then x and c
// move on three rows. groups is at least 1 and n a positive multiple of 8.
// The caller guarantees every index is in range. Unless next is nil, the
// first group also prefetches n columns of four rows of stride ldw from
// next on: the block of w the caller passes next (a prefetch reads nothing
// into the program and never faults, so next may be any address).
//
//go:noescape
func dot3x4(groups, n int, x *float32, ldx int, w *float32, ldw int, c *float32, ldc int, alpha float32, next *float32)

// dot1x4 is dot3x4 for one row of x: c[r] += alpha·Σ_{j<n} x[j]·w[r·ldw + j]
// for r in 0..3.
//
//go:noescape
func dot1x4(n int, x *float32, w *float32, ldw int, c *float32, alpha float32)
