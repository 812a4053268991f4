package engine

import (
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// matmul computes out = W·x for a row-major matrix W of shape (len(out),
// len(x)): one dot product per output. This matrix-vector product is where a
// decoding step spends almost all of its time. Large products are split by
// rows across the available cores.
func matmul(out, x, w []float32) {
	rows, cols := len(out), len(x)
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || rows*cols < parallelThreshold || rows < 2*workers {
		gemv(out, x, w, rows, cols)
		return
	}
	var wg sync.WaitGroup
	per := (rows + workers - 1) / workers
	for r0 := 0; r0 < rows; r0 += per {
		r1 := min(r0+per, rows)
		wg.Add(1)
		go func() {
			defer wg.Done()
			gemv(out[r0:r1], x, w[r0*cols:r1*cols], r1-r0, cols)
		}()
	}
	wg.Wait()
}

// parallelThreshold is the matrix size (in weights) below which splitting
// the work costs more than it saves.
const parallelThreshold = 1 << 16

func gemv(out, x, w []float32, rows, cols int) {
	blas32.Gemv(blas.NoTrans, 1,
		blas32.General{Rows: rows, Cols: cols, Stride: cols, Data: w[:rows*cols]},
		blas32.Vector{N: cols, Inc: 1, Data: x},
		0, blas32.Vector{N: rows, Inc: 1, Data: out})
}
