// Package simd holds the engine's and the trainer's hot loops written with
// SIMD instructions, AVX2 and FMA (and AVX-512 in Gemm, when the CPU has
// it): the matrix-vector product of a decoding step (Gemv), the
// matrix-matrix product of training and prefill (Gemm), and the two loops
// of attention over the KV cache, the scores q·k (Scores) and the sum of
// the values weighted by the attention probabilities (WeightedSum), and
// the softmax between them (Max, and ExpSum's exponentials), the sum of
// exponentials under a token's log-probability (SumExp), and the MLP's
// SwiGLU gate (SwiGLU); exponentials by a polynomial, 8 numbers at a time.
// They read memory through pointers, so each checks the shapes it is given
// before it starts.
//
// Available reports whether the CPU has the instructions; when it does not
// (or on other architectures), Gemm and Gemv go through gonum's blas32,
// which is also the reference the tests compare against. Every element of a result
// is summed by one goroutine in a fixed order, so results do not depend on
// the number of cores.
package simd
