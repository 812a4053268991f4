// Package ggml computes what a llama model computes between its matrix
// products the way llama.cpp's CPU backend (ggml-cpu, built for x86-64
// with AVX-512, as the project's recordings of llama.cpp were) computes
// it, rounding where it rounds, so that the engine's logits for a GGUF
// model are llama.cpp's:
//
//   - Attend and AttendTiled are its flash attention over keys and values
//     kept in f16: one position at a time, with the query rounded to f16
//     and the output accumulated in f16, for a decoding step and a batch
//     of fewer than 64 tokens; by tiles of 64 positions in float32 for a
//     batch of 64 tokens or more. DotF16 is its dot product of f16
//     vectors, the first.
//   - Rotate is its rotary position embedding, with the cosines and sines
//     of SinCos.
//   - Exp and SinCos are the C library's expf and sincosf (glibc's, which
//     llama.cpp calls for its online softmax and its rotary angles), bit
//     for bit; VExp the polynomial exponential of its vector code; SwiGLU
//     its gate silu(x)·y, with VExp.
//   - FMA32 is a fused multiply-add of float32 numbers, rounded once, as
//     its vector code does them.
//
// Everything is written in plain Go, the reference; what a forward pass
// spends time on also has assembly kernels for amd64 with AVX2, FMA and
// F16C, which give the same bits, as the tests check. The tests also check
// the functions against outputs of llama.cpp and of the C library.
package ggml
