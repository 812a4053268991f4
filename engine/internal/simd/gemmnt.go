package simd

// The product with a weight matrix as it is stored.
//
// A layer's weights are stored as (outputs, inputs) rows, so a batch of
// tokens times the weights is A·Bᵀ with both A's rows and B's rows running
// along the inner dimension: C[i][j] is the dot product of token i with
// weight row j. gemmNT computes it in that layout, with no transposed copy
// of B: dot3x4 takes three tokens and four weight rows at a time, so each
// weight read serves three tokens while it sits in a register, and the
// twelve sums stay in twelve registers until the end.
//
// The inner dimension is cut into slices of ntK, and the tokens into
// groups of ntM, so that the four weight rows dot3x4 works on stay in the
// L1 cache while every group of three tokens uses them, and the group's
// slice of A stays in the L2 cache while every block of four weight rows
// passes over it. Each weight is then read from memory once per group of
// ntM tokens. The last k mod 8 columns, and weight rows past the last
// multiple of 4, are summed in plain Go.
//
// That one read is the slow part: the first group of three tokens waits
// for the four weight rows to come from memory, and the processor's own
// prefetcher, which follows each row only within a 4 kB page and only
// once it has seen a few lines of it, does not hide the wait for rows
// whose slice is 2 kB. So while the first group works on one block of
// four rows, dot3x4 asks for the next block (prefetchNext), which then
// arrives while the other groups work on the block in the L1 cache.

// prefetchNext is whether dot3x4 fetches the next block of weight rows
// ahead (see above); benchmarks turn it off to measure what it gains.
var prefetchNext = true

const (
	ntK = 512 // inner-dimension slice: 4 weight rows of it are 8 kB
	ntM = 96  // tokens per group (a multiple of 3): 192 kB of A per slice
)

// gemmNT adds alpha·A·Bᵀ to C: C[i][j] += alpha·Σ_p A[i][p]·B[j][p] for A
// of shape (m, k), B of shape (n, k) and C of shape (m, n), row-major with
// strides lda, ldb and ldc. Large products are split across cores by
// bands of columns of C (of rows of B), so each core reads its own part of
// the weights; every element is summed by one goroutine in one order,
// whatever the number of cores.
func gemmNT(m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	inBands(n, m*n*k, func(j0, j1 int) {
		gemmNTCols(j0, j1, m, k, alpha, a, lda, b, ldb, c, ldc)
	})
}

// gemmNTCols is gemmNT for columns [j0, j1) of C.
func gemmNTCols(j0, j1, m, k int, alpha float32, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	k8 := k / 8 * 8
	j4 := j0 + (j1-j0)/4*4
	for p0 := 0; p0 < k8; p0 += ntK {
		kc := min(ntK, k8-p0)
		for i0 := 0; i0 < m; i0 += ntM {
			i1 := min(i0+ntM, m)
			for j := j0; j < j4; j += 4 {
				i := i0
				if groups := (i1 - i0) / 3; groups > 0 {
					var next *float32
					if prefetchNext && j+4 < j4 {
						next = &b[(j+4)*ldb+p0]
					}
					dot3x4(groups, kc, &a[i*lda+p0], lda, &b[j*ldb+p0], ldb, &c[i*ldc+j], ldc, alpha, next)
					i += 3 * groups
				}
				for ; i < i1; i++ {
					dot1x4(kc, &a[i*lda+p0], &b[j*ldb+p0], ldb, &c[i*ldc+j], alpha)
				}
			}
		}
	}
	// The edges: the last k mod 8 columns of the rows the kernels took,
	// then whole rows of B past the last multiple of 4.
	for i := range m {
		ai := a[i*lda : i*lda+k]
		if k8 < k {
			for j := j0; j < j4; j++ {
				c[i*ldc+j] += alpha * dotGo(ai[k8:], b[j*ldb+k8:j*ldb+k])
			}
		}
		for j := j4; j < j1; j++ {
			c[i*ldc+j] += alpha * dotGo(ai, b[j*ldb:j*ldb+k])
		}
	}
}

// MulT sets C = A·Bᵀ on the calling goroutine: C[i][j] = Σ_p A[i][p]·B[j][p]
// for A of shape (m, k) and B of shape (n, k) — a batch of tokens and a
// weight matrix as it is stored — and C of shape (m, n), row-major with
// strides lda, ldb and ldc. A caller that shares a batch's tokens among
// the cores itself calls it for each share. The results do not depend on
// m: each element is summed the same way however the tokens are grouped.
// Without the kernels (!Available) it goes through gonum. It panics if a
// matrix is too short for its shape.
func MulT(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	checkMatrix("MulT", "A", a, m, k, lda)
	checkMatrix("MulT", "B", b, n, k, ldb)
	checkMatrix("MulT", "C", c, m, n, ldc)
	if !Available {
		gonumGemm(false, true, m, n, k, 1, a, lda, b, ldb, 0, c, ldc)
		return
	}
	for i := range m {
		clear(c[i*ldc : i*ldc+n])
	}
	gemmNTCols(0, n, m, k, 1, a, lda, b, ldb, c, ldc)
}
