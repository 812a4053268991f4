package quant

import (
	"fmt"

	"github.com/tokenbytoken/course/engine/gguf"
)

// Matrix is a row-major weight matrix of Rows × Cols numbers stored in one
// tensor type, with the products a model computes with it. It is safe
// for concurrent use: its methods only read it.
//
// A Matrix keeps the weights in the layout its products read fastest:
// Q4_0, Q4_1 and Q8_0 rearranged (see q32.go), the others as they are
// stored. Row and Dequantize give the
// numbers of the stored type exactly, whatever the layout.
type Matrix struct {
	typ        gguf.Type
	rows, cols int
	impl       impl
}

// impl is the computation of one storage. The Matrix methods check their
// arguments before they call it.
type impl interface {
	// row sets dst[0:cols] to row i.
	row(i int, dst []float32)
	// bytes is the size of the weights one product reads.
	bytes() int64
	// kind is how the products want their inputs prepared.
	kind() vecKind
	// inputs is how many inputs mulBatch's kernel takes at once.
	inputs() int
	// mulVec sets out[r] for r in [r0, r1) from input 0 of v.
	mulVec(out []float32, v *Vec, r0, r1 int)
	// mulBatch sets out[t·rows + r] for t in [t0, t1), r in [r0, r1).
	mulBatch(out []float32, v *Vec, t0, t1, r0, r1 int)
}

// NewMatrix makes a Matrix of rows × cols numbers of type t from data, the
// tensor's bytes as a GGUF file stores them, row after row. Each row must
// be a whole number of t's blocks and data must hold exactly the rows.
// Types the package computes with: F32, F16, BF16, Q8_0, Q4_0, Q4_1,
// Q4_K, Q5_K and Q6_K. F16, BF16 and the K-quants are used where they
// are, so data must not change afterwards; F32 is copied as float32 (see
// NewMatrixF32 for float32 weights already in memory), Q4_0, Q4_1 and
// Q8_0 into the layout of their products (see q32.go).
func NewMatrix(t gguf.Type, rows, cols int, data []byte) (*Matrix, error) {
	if rows <= 0 || cols <= 0 {
		return nil, fmt.Errorf("quant: a %d×%d matrix has no numbers", rows, cols)
	}
	rowBytes, ok := t.RowBytes(int64(cols))
	if !ok {
		if !t.Known() {
			return nil, fmt.Errorf("quant: %v is not a GGUF tensor type", t)
		}
		return nil, fmt.Errorf("quant: rows of %d numbers are not a whole number of %v blocks of %d", cols, t, t.BlockSize())
	}
	// (The first test keeps rows·rowBytes from overflowing.)
	if int64(rows) > int64(len(data))/rowBytes || int64(len(data)) != int64(rows)*rowBytes {
		return nil, fmt.Errorf("quant: %d×%d %v takes %d×%d bytes, but the data holds %d", rows, cols, t, rows, rowBytes, len(data))
	}
	m := &Matrix{typ: t, rows: rows, cols: cols}
	switch t {
	case gguf.F32:
		m.impl = newF32(rows, cols, data)
	case gguf.F16, gguf.BF16:
		m.impl = &f16Matrix{bf16: t == gguf.BF16, rows: rows, cols: cols, w: data}
	case gguf.Q4_0, gguf.Q4_1, gguf.Q8_0:
		m.impl = newQ32(t, rows, cols, data)
	case gguf.Q4_K, gguf.Q5_K, gguf.Q6_K:
		m.impl = &kMatrix{typ: t, rows: rows, cols: cols, rowBytes: int(rowBytes), w: data}
	default:
		return nil, fmt.Errorf("quant: no products for %v matrices", t)
	}
	return m, nil
}

// NewMatrixF32 makes an F32 Matrix of rows × cols numbers that uses w
// (row after row) where it is, so w must not change afterwards.
func NewMatrixF32(rows, cols int, w []float32) (*Matrix, error) {
	if rows <= 0 || cols <= 0 {
		return nil, fmt.Errorf("quant: a %d×%d matrix has no numbers", rows, cols)
	}
	if len(w)%cols != 0 || len(w)/cols != rows {
		return nil, fmt.Errorf("quant: %d numbers are not a %d×%d matrix", len(w), rows, cols)
	}
	return &Matrix{typ: gguf.F32, rows: rows, cols: cols, impl: &f32Matrix{rows: rows, cols: cols, w: w}}, nil
}

// Type is the tensor type the weights are stored in.
func (m *Matrix) Type() gguf.Type { return m.typ }

// Rows is the number of rows: the outputs of a product.
func (m *Matrix) Rows() int { return m.rows }

// Cols is the number of columns: the length of an input.
func (m *Matrix) Cols() int { return m.cols }

// Row sets dst[0:Cols] to row i: an embedding lookup, when the matrix is
// a table of token embeddings. It panics if i is out of range or dst is
// shorter than a row.
func (m *Matrix) Row(i int, dst []float32) {
	if i < 0 || i >= m.rows {
		panic(fmt.Sprintf("quant: Row(%d) of a matrix of %d rows", i, m.rows))
	}
	if len(dst) < m.cols {
		panic(fmt.Sprintf("quant: Row into %d numbers, not %d", len(dst), m.cols))
	}
	m.impl.row(i, dst[:m.cols])
}

// Dequantize sets dst to the whole matrix, row after row, as float32: for
// tests and notebooks. It panics if dst does not hold Rows·Cols numbers.
func (m *Matrix) Dequantize(dst []float32) {
	if len(dst) != m.rows*m.cols {
		panic(fmt.Sprintf("quant: Dequantize into %d numbers, not %d×%d", len(dst), m.rows, m.cols))
	}
	for i := range m.rows {
		m.impl.row(i, dst[i*m.cols:(i+1)*m.cols])
	}
}

// Bytes is the size of the weights one product reads: what a decoding
// step costs in memory traffic for this matrix.
func (m *Matrix) Bytes() int64 { return m.impl.bytes() }

// Inputs is how many inputs MulBatch's kernel multiplies at once, each
// weight read once for them all: 8 for Q4_0, Q4_1 and Q8_0 on a CPU with
// AVX-512 VNNI, 3 for F32, 1 otherwise. Inputs shared among cores run
// fastest in runs of a multiple of it; the results are the same bits
// however the runs fall.
func (m *Matrix) Inputs() int { return m.impl.inputs() }

// Prepare makes v the input x (Cols numbers) of this matrix's products:
// for the quantized types x is quantized to 8 bits a number as llama.cpp
// quantizes it, with a scale for every block of 32 (Q4_0, Q4_1, Q8_0: an
// f16) or 256 (K-quants: a float32) numbers (see Vec); for F32, F16 and
// BF16 v keeps x itself, which must then not change until the products
// are done. v's buffers are reused, so Prepare allocates nothing once v
// has held an input as large. A block with a NaN or an infinity makes
// every product with it NaN; one whose numbers are all below 2⁻¹⁰⁰ in
// size counts as zeros, as does, for blocks of 32, one whose scale is
// below the smallest f16 (its largest magnitude below about 4·10⁻⁶).
//
// One Vec serves every matrix with the same Cols whose type prepares
// inputs the same way (Prepared says which): the query, key and value
// projections of a layer, say, prepare their common input once.
func (m *Matrix) Prepare(x []float32, v *Vec) {
	if len(x) != m.cols {
		panic(fmt.Sprintf("quant: Prepare of %d numbers for a matrix of %d columns", len(x), m.cols))
	}
	v.prepare(m.impl.kind(), x, 1, m.cols)
}

// PrepareBatch is Prepare for n inputs at once, the rows of x (n × Cols),
// for MulBatch.
func (m *Matrix) PrepareBatch(x []float32, n int, v *Vec) {
	if n <= 0 || len(x) != n*m.cols {
		panic(fmt.Sprintf("quant: PrepareBatch of %d numbers as %d inputs for a matrix of %d columns", len(x), n, m.cols))
	}
	v.prepare(m.impl.kind(), x, n, m.cols)
}

// Prepared reports whether v holds inputs this matrix's products can
// take: inputs of Cols numbers, prepared by a matrix of a type that
// prepares them the same way.
func (m *Matrix) Prepared(v *Vec) bool {
	return v.n > 0 && v.kind == m.impl.kind() && v.cols == m.cols
}

// MulVec sets out[r] = row r · x for r in [r0, r1), for the x that v was
// prepared with. Each row's sum is computed the same way whatever r0 and
// r1 are, so cores that share the rows out in any ranges get the same
// bits as one core doing them all. out must hold Rows numbers; v must
// hold one input (Prepare). It panics otherwise.
func (m *Matrix) MulVec(out []float32, v *Vec, r0, r1 int) {
	m.check("MulVec", v, r0, r1)
	if v.n != 1 {
		panic(fmt.Sprintf("quant: MulVec with a Vec of %d inputs; MulBatch takes them", v.n))
	}
	if len(out) < m.rows {
		panic(fmt.Sprintf("quant: MulVec into %d numbers, not %d", len(out), m.rows))
	}
	if r0 < r1 {
		m.impl.mulVec(out, v, r0, r1)
	}
}

// MulBatch sets out[t·Rows + r] = row r · x_t for the inputs t in [t0,
// t1) and the rows r in [r0, r1) of a Vec prepared with PrepareBatch: out
// is (inputs × Rows), row-major, like the x it was prepared from. Each
// weight is read once for several inputs. Cores can share the work by
// inputs or by rows: each number is computed the same way whatever the
// ranges, and, for every type but F32 (whose batch product is
// simd.MulT), the same way as MulVec computes it for that input alone.
// out must hold v's inputs × Rows numbers. It panics otherwise.
func (m *Matrix) MulBatch(out []float32, v *Vec, t0, t1, r0, r1 int) {
	m.check("MulBatch", v, r0, r1)
	if t0 < 0 || t1 > v.n || t0 > t1 {
		panic(fmt.Sprintf("quant: MulBatch of inputs [%d, %d) of a Vec of %d", t0, t1, v.n))
	}
	if len(out) < v.n*m.rows {
		panic(fmt.Sprintf("quant: MulBatch into %d numbers, not %d×%d", len(out), v.n, m.rows))
	}
	if r0 < r1 && t0 < t1 {
		m.impl.mulBatch(out, v, t0, t1, r0, r1)
	}
}

// check panics unless v suits m and [r0, r1) is a range of its rows.
func (m *Matrix) check(op string, v *Vec, r0, r1 int) {
	if r0 < 0 || r1 > m.rows || r0 > r1 {
		panic(fmt.Sprintf("quant: %s of rows [%d, %d) of a matrix of %d", op, r0, r1, m.rows))
	}
	if v.n == 0 {
		panic(fmt.Sprintf("quant: %s with a Vec that holds no input", op))
	}
	if v.kind != m.impl.kind() || v.cols != m.cols {
		panic(fmt.Sprintf("quant: %s of a %v matrix of %d columns with a Vec prepared for %v inputs of %d",
			op, m.typ, m.cols, v.kind, v.cols))
	}
}
