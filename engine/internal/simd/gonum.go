package simd

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// gonumGemm is Gemm through gonum's blas32: the fallback on CPUs without
// the kernels, and the reference the tests compare the kernels with.
func gonumGemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	ta, tb := blas.NoTrans, blas.NoTrans
	ar, ac, br, bc := m, k, k, n
	if transA {
		ta, ar, ac = blas.Trans, k, m
	}
	if transB {
		tb, br, bc = blas.Trans, n, k
	}
	blas32.Gemm(ta, tb, alpha,
		blas32.General{Rows: ar, Cols: ac, Stride: lda, Data: a},
		blas32.General{Rows: br, Cols: bc, Stride: ldb, Data: b},
		beta, blas32.General{Rows: m, Cols: n, Stride: ldc, Data: c})
}

// gonumGemv is Gemv through gonum's blas32.
func gonumGemv(out, x, w []float32) {
	rows, cols := len(out), len(x)
	blas32.Gemv(blas.NoTrans, 1,
		blas32.General{Rows: rows, Cols: cols, Stride: max(cols, 1), Data: w[:rows*cols]},
		blas32.Vector{N: cols, Inc: 1, Data: x},
		0, blas32.Vector{N: rows, Inc: 1, Data: out})
}
