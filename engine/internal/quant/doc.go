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
// with a scale per block (Prepare), exactly as llama.cpp's CPU backend
// quantizes it (rounding ties to even, scales of blocks of 32 rounded to
// f16), so that the inner loop is a dot product of small integers, which
// the processor does 32 at a time, and the products see the numbers
// llama.cpp's see. The Q4_0, Q4_1 and Q8_0 products then sum them as
// llama.cpp's AVX2 dot products do, in the same order, giving its bits
// (see q32.go); the K-quants' products keep an order of their own.
//
// On amd64 the products are assembly kernels: with AVX2, FMA and F16C
// (VPMADDUBSW and VPMADDWD for the integer dot products), and where the
// CPU has AVX-512 VNNI, kernels that use VPDPBUSD and VPDPWSSD instead
// and give the same bits. Elsewhere, and on CPUs without AVX2, they are
// in plain Go. Either way each output is computed by one goroutine in
// one order, whatever part of the rows or inputs it is given, so the
// results do not depend on how the work is shared among cores.
package quant
