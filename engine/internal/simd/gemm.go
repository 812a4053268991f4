package simd

import (
	"fmt"
	"sync"

	"github.com/tokenbytoken/course/engine/internal/parallel"
)

// The blocked matrix-matrix product.
//
// C is cut into blocks of 4 rows × 16 columns (32 with AVX-512, in
// kernel4x32, which gives bit-identical results). kernel4x16 computes one
// block over a slice of the inner dimension with the block held in eight
// vector registers, so each step costs one row of B and four numbers of A
// and does 64 multiply-adds; gonum's float32 product instead streams C
// through memory once per step of the inner dimension. The inner dimension
// is cut into slices of kBlock so the slice of B a column block needs
// stays in the L1 cache while every row block uses it. Rows and columns
// left over at the edges are summed in plain Go.

// kBlock is the length of the inner-dimension slices.
const kBlock = 256

// parallelWork is the size m·n·k above which a product is split across
// cores; smaller ones cost more to hand off than they save.
const parallelWork = 1 << 18

// transposed holds transposed copies of B between calls.
var transposed = sync.Pool{New: func() any { return new([]float32) }}

// Gemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices, where
// op(A) is (m, k), op(B) is (k, n) and C is (m, n); transA and transB say
// whether A and B are stored transposed, and lda, ldb and ldc are the row
// strides, so a block of columns of a wider matrix can be passed as a view.
// Large products are split across cores by bands of rows. It panics if a
// matrix is too short for its shape.
//
// A stored-transposed B, the layout of a weight matrix, is multiplied as
// it is stored (see gemmNT). Without the kernels (!Available) the product
// goes through gonum.
func Gemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if !Available {
		gonumGemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	gemmKernel(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// gemmKernel is Gemm in the kernels; the caller has checked Available.
func gemmKernel(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	ar, ac, br, bc := m, k, k, n // how A and B are stored
	if transA {
		ar, ac = k, m
	}
	if transB {
		br, bc = n, k
	}
	checkMatrix("Gemm", "A", a, ar, ac, lda)
	checkMatrix("Gemm", "B", b, br, bc, ldb)
	checkMatrix("Gemm", "C", c, m, n, ldc)

	if beta != 1 {
		for i := range m {
			row := c[i*ldc : i*ldc+n]
			if beta == 0 {
				clear(row)
				continue
			}
			for j := range row {
				row[j] *= beta
			}
		}
	}
	if k == 0 || alpha == 0 {
		return
	}
	// A stored-transposed B (a weight matrix) is read as it is stored,
	// unless A is transposed too: then B is copied into the (k, n) rows
	// the blocked kernel reads.
	if transB && !transA {
		gemmNT(m, n, k, alpha, a, lda, b, ldb, c, ldc)
		return
	}
	if transB {
		buf := transposed.Get().(*[]float32)
		defer transposed.Put(buf)
		if cap(*buf) < k*n {
			*buf = make([]float32, k*n)
		}
		t := (*buf)[:k*n]
		for j := range n {
			src := b[j*ldb : j*ldb+k]
			for p, v := range src {
				t[p*n+j] = v
			}
		}
		b, ldb = t, n
	}
	// Element (i, p) of op(A) is a[i·aRow + p·aStep].
	aRow, aStep := lda, 1
	if transA {
		aRow, aStep = 1, lda
	}
	// Each core owns a band of rows of C, so every element is summed by
	// one goroutine in one order.
	inBands(m, m*n*k, func(r0, r1 int) {
		gemmRows(r0, r1, n, k, alpha, a, aRow, aStep, b, ldb, c, ldc)
	})
}

// inBands calls f(lo, hi) for bands [lo, hi) that cover 0..n-1 once, each
// a multiple of 4 long but the last, shared among the cores by the engine's
// pool when the work (in multiply-adds) is worth the hand-off and there
// are at least 8 items, or the whole range on the caller otherwise. It
// returns when every band is done.
func inBands(n, work int, f func(lo, hi int)) {
	worth := work >= parallelWork && n >= 8
	parallel.For((n+3)/4, worth, func(_, b0, b1 int) {
		f(b0*4, min(b1*4, n))
	})
}

// gemmRows adds alpha·op(A)·B to rows [r0, r1) of C.
func gemmRows(r0, r1, n, k int, alpha float32, a []float32, aRow, aStep int, b []float32, ldb int, c []float32, ldc int) {
	fullRows := r0 + (r1-r0)/4*4
	fullCols := n / 16 * 16
	for p0 := 0; p0 < k; p0 += kBlock {
		kc := min(kBlock, k-p0)
		j := 0
		if wide {
			for ; j+32 <= fullCols; j += 32 {
				for i := r0; i < fullRows; i += 4 {
					kernel4x32(kc, &a[i*aRow+p0*aStep], aRow, aStep, &b[p0*ldb+j], ldb, &c[i*ldc+j], ldc, alpha)
				}
			}
		}
		for ; j < fullCols; j += 16 {
			for i := r0; i < fullRows; i += 4 {
				kernel4x16(kc, &a[i*aRow+p0*aStep], aRow, aStep, &b[p0*ldb+j], ldb, &c[i*ldc+j], ldc, alpha)
			}
		}
		// Edges: the columns right of the last full block, then the rows
		// below the last full block.
		for i := r0; i < r1; i++ {
			jStart := fullCols
			if i >= fullRows {
				jStart = 0
			}
			for j := jStart; j < n; j++ {
				var s float32
				for p := p0; p < p0+kc; p++ {
					s += a[i*aRow+p*aStep] * b[p*ldb+j]
				}
				c[i*ldc+j] += alpha * s
			}
		}
	}
}

// checkMatrix panics unless data holds a rows×cols matrix with row stride
// ld: the kernel reads memory directly, so a bad shape must stop here.
func checkMatrix(fn, name string, data []float32, rows, cols, ld int) {
	if rows < 0 || cols < 0 || ld < max(cols, 1) {
		panic(fmt.Sprintf("simd: %s: %s is %d×%d with row stride %d", fn, name, rows, cols, ld))
	}
	if rows > 0 && cols > 0 && len(data) < (rows-1)*ld+cols {
		panic(fmt.Sprintf("simd: %s: %s is %d×%d with row stride %d but holds only %d numbers", fn, name, rows, cols, ld, len(data)))
	}
}
