// Package quant computes with weight matrices stored in the tensor types
// of GGUF files: float32, the 16-bit floats F16 and BF16, and the
// block-quantized types Q8_0, Q4_0, Q4_1, Q4_K, Q5_K and Q6_K, in which
// a block of 32 or 256 numbers shares a scale (and for some a minimum)
// and each number keeps only 4 to 8 bits.
//
// Dequantize and the dequantizeXXX loops, one per type, say what the
// bytes of each type mean; they are the reference, checked against the
// Python gguf package, that everything else is tested against.
//
// A Matrix holds one weight matrix and computes its own products: the
// matrix-vector product of a decoding step (MulVec) and the product with
// many input rows at once of a prefill (MulBatch). For the quantized
// types the input vector is first quantized to 8 bits per number too,
// with a float32 scale per block (Prepare), so that the inner loop is a
// dot product of small integers, which the processor does 32 at a time.
package quant
