#include "textflag.h"

// The products of Q4_0, Q4_1 and Q8_0 matrices with one input, a group of
// 4 rows at a time, in the layout of q32.go, with the operations of
// llama.cpp's AVX2 dot products (ggml_vec_dot_q4_1_q8_1 and the like):
// for each block, 8 integer sums of 4 consecutive numbers' products (one
// VPDPBUSD, or VPMADDUBSW and VPMADDWD), converted to float32 and fused
// into the row's 8 accumulators with the product of the scales; at the
// end of the row
//
//	sum = ((a0+a4)+(a2+a6)) + ((a1+a5)+(a3+a7))  (+ the min terms, Q4_1)
//
// the min terms summed block after block by fused multiply-adds. The
// products of the scales of the pair's 4 rows and 2 blocks with the
// input's (one VCVTPH2PS and one VMULPS) go to the stack, where each is
// broadcast in turn; they are computed a pair ahead, into the other of two
// slots, so that they are not read back while the store is still on its
// way (q32.go leaves room for the pair after the last).
//
// All of them take
//
//	func(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)
//
// with w the first group's weights (groups follow each other), x, d, s
// and sum the input's quants, scales, scaled sums and sums of 4 quants
// (Vec), and out the 4·groups results. The VNNI ones need AVX-512 VNNI
// and VL, the others AVX2, FMA and F16C; for the same arguments both give
// the same bits, since the integer sums are exact and the float
// operations the same.

// AHEAD is how far ahead of the pair at hand the kernels ask for the
// weights. The processor's own prefetching follows a stream of reads
// only once it has seen it and only within a page, so without asking,
// each matrix's first kilobytes and each new page wait for memory.
#define AHEAD 5120

// PREFETCHn asks for the n lines of a pair (3 or 5) AHEAD.
#define PREFETCH3 \
	PREFETCHT0 AHEAD(SI);     \
	PREFETCHT0 AHEAD+64(SI);  \
	PREFETCHT0 AHEAD+128(SI)

#define PREFETCH5 \
	PREFETCH3;                \
	PREFETCHT0 AHEAD+192(SI); \
	PREFETCHT0 AHEAD+256(SI)

// Arguments and loop registers common to all the kernels.
#define ARGS \
	MOVQ groups+0(FP), CX; \
	MOVQ pairs+8(FP), BX;  \
	MOVQ w+16(FP), SI;     \
	MOVQ out+56(FP), DI

// START_GROUP zeroes the sums, points at the input's first pair and
// puts the first pair's products of scales in the slot at R12.
#define START_GROUP \
	VXORPS    Y0, Y0, Y0;   \
	VXORPS    Y1, Y1, Y1;   \
	VXORPS    Y2, Y2, Y2;   \
	VXORPS    Y3, Y3, Y3;   \
	VXORPS    Y4, Y4, Y4;   \
	MOVQ      x+24(FP), R8; \
	MOVQ      d+32(FP), R9;  \
	MOVQ      s+40(FP), R10; \
	MOVQ      sum+48(FP), R11; \
	MOVQ      BX, DX;        \
	LEAQ      (SP), R12;     \
	LEAQ      32(SP), R13;   \
	VCVTPH2PS (SI), Y5;      \
	VMULPS    (R9), Y5, Y5;  \
	VMOVUPS   Y5, (R12)

// HSUM sets x, the low half of acc, to [(a0+a4)+(a2+a6), (a1+a5)+(a3+a7),
// …] for acc's lanes a.
#define HSUM(acc, x) \
	VEXTRACTF128 $1, acc, X9; \
	VADDPS       X9, x, x;    \
	VMOVHLPS     x, x, X9;    \
	VADDPS       X9, x, x

// END_GROUP adds up each row's 8 lanes, stores the 4 sums and moves on;
// END_GROUP_MINS adds the min terms of X4 (rows in lanes 0–3) first.
#define END_GROUP END_SUMS(NOP)
#define END_GROUP_MINS END_SUMS(ADD_MINS)
#define ADD_MINS VADDPS X4, X9, X9

#define END_SUMS(mins) \
	HSUM(Y0, X0);            \
	HSUM(Y1, X1);            \
	HSUM(Y2, X2);            \
	HSUM(Y3, X3);            \
	VUNPCKLPS X1, X0, X0;    \
	VUNPCKLPS X3, X2, X2;    \
	VMOVLHPS  X2, X0, X9;    \
	VMOVHLPS  X0, X2, X10;   \
	VADDPS    X10, X9, X9;   \
	mins;                    \
	VMOVUPS   X9, (DI);      \
	ADDQ      $16, DI

// PAIR_SCALES puts the next pair's 8 products of scales S in the slot at
// R13 (the pair's own are in the slot at R12, row r of block h at 4(r +
// 4h)), and loads the input's quants: Y7 the first block's, Y8 the
// second's.
#define PAIR_SCALES(bytes) \
	VCVTPH2PS bytes(SI), Y5;  \
	VMULPS    32(R9), Y5, Y5; \
	VMOVUPS   Y5, (R13);      \
	VMOVDQU   (R8), Y7;       \
	VMOVDQU   32(R8), Y8

// BIASES sets Y13 and Y6 to −2^k times the input's sums of 4 quants of
// the first and the second block: the integer sums start there, for
// weights stored with an offset of 2^k.
#define BIASES(k) \
	VPXOR   Y12, Y12, Y12; \
	VMOVDQU (R11), Y13;    \
	VPSLLD  $k, Y13, Y13;  \
	VPSUBD  Y13, Y12, Y13; \
	VMOVDQU 32(R11), Y6;   \
	VPSLLD  $k, Y6, Y6;    \
	VPSUBD  Y6, Y12, Y6

#define NEXT_PAIR(bytes) \
	ADDQ  $bytes, SI; \
	ADDQ  $64, R8;    \
	ADDQ  $32, R9;    \
	ADDQ  $32, R10;   \
	ADDQ  $64, R11;   \
	XCHGQ R12, R13;   \
	DECQ  DX

// SCALE_ADD adds row i's integer sums of the first block (Y11) and of the
// second (Y12), scaled, to its accumulator, in that order.
#define SCALE_ADD(i, acc) \
	VCVTDQ2PS    Y11, Y11;       \
	VCVTDQ2PS    Y12, Y12;       \
	VBROADCASTSS 4*i(R12), Y5;   \
	VFMADD231PS  Y5, Y11, acc;   \
	VBROADCASTSS 16+4*i(R12), Y5; \
	VFMADD231PS  Y5, Y12, acc

// NIBBLES sets Y9 and Y10 to the low and high nibbles of 32 bytes at off:
// the two blocks' 4-bit quants, in order.
#define NIBBLES(off) \
	VMOVDQU off(SI), Y9;   \
	VPSRLW  $4, Y9, Y10;   \
	VPAND   Y15, Y9, Y9;   \
	VPAND   Y15, Y10, Y10

// Integer sums of 4 unsigned Y9 (Y10) with signed Y7 (Y8), added to Y11
// (Y12): with VNNI, or with AVX2 (Y14 holds 16-bit ones; the 16-bit sums
// cannot overflow when the unsigned bytes are below 128).
#define DOT_VNNI \
	VPDPBUSD Y7, Y9, Y11; \
	VPDPBUSD Y8, Y10, Y12

#define DOT_AVX2 \
	VPMADDUBSW Y7, Y9, Y9;    \
	VPMADDUBSW Y8, Y10, Y10;  \
	VPMADDWD   Y14, Y9, Y9;   \
	VPMADDWD   Y14, Y10, Y10; \
	VPADDD     Y9, Y11, Y11;  \
	VPADDD     Y10, Y12, Y12

#define NIBBLE_MASK \
	MOVQ         $0x0f0f0f0f0f0f0f0f, AX; \
	MOVQ         AX, X15;                 \
	VPBROADCASTQ X15, Y15

#define WORD_ONES \
	MOVQ         $0x0001000100010001, AX; \
	MOVQ         AX, X14;                 \
	VPBROADCASTQ X14, Y14

// Q4_1: the integer sums start at 0; the minimums times the input's
// scaled sums go to X4, the first block's then the second's.
#define Q41_ROW(dot, i, acc) \
	NIBBLES(32+32*i);     \
	VPXOR Y11, Y11, Y11;  \
	VPXOR Y12, Y12, Y12;  \
	dot;                  \
	SCALE_ADD(i, acc)

#define Q41_PAIR(dot) \
	PREFETCH3;                   \
	PAIR_SCALES(160);            \
	VCVTPH2PS    16(SI), Y6;     \
	VFMADD231PS  (R10), X6, X4;  \
	VEXTRACTF128 $1, Y6, X6;     \
	VFMADD231PS  16(R10), X6, X4; \
	Q41_ROW(dot, 0, Y0);         \
	Q41_ROW(dot, 1, Y1);         \
	Q41_ROW(dot, 2, Y2);         \
	Q41_ROW(dot, 3, Y3);         \
	NEXT_PAIR(160)

// Q4_0: the quants stand for q − 8, so the integer sums start at −8
// times the input's sums of 4 quants.
#define Q40_ROW(dot, i, acc) \
	NIBBLES(16+32*i);     \
	VMOVDQA Y13, Y11;     \
	VMOVDQA Y6, Y12;      \
	dot;                  \
	SCALE_ADD(i, acc)

#define Q40_PAIR(dot) \
	PREFETCH3;           \
	PAIR_SCALES(144);    \
	BIASES(3);           \
	Q40_ROW(dot, 0, Y0); \
	Q40_ROW(dot, 1, Y1); \
	Q40_ROW(dot, 2, Y2); \
	Q40_ROW(dot, 3, Y3); \
	NEXT_PAIR(144)

// func q41VecVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)
TEXT ·q41VecVNNI(SB), NOSPLIT, $64-64
	ARGS
	NIBBLE_MASK

q41vnni_group:
	START_GROUP

q41vnni_pair:
	Q41_PAIR(DOT_VNNI)
	JNZ q41vnni_pair
	END_GROUP_MINS
	DECQ CX
	JNZ  q41vnni_group
	VZEROUPPER
	RET

// func q41VecAVX2(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)
TEXT ·q41VecAVX2(SB), NOSPLIT, $64-64
	ARGS
	NIBBLE_MASK
	WORD_ONES

q41avx2_group:
	START_GROUP

q41avx2_pair:
	Q41_PAIR(DOT_AVX2)
	JNZ q41avx2_pair
	END_GROUP_MINS
	DECQ CX
	JNZ  q41avx2_group
	VZEROUPPER
	RET

// func q40VecVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)
TEXT ·q40VecVNNI(SB), NOSPLIT, $64-64
	ARGS
	NIBBLE_MASK

q40vnni_group:
	START_GROUP

q40vnni_pair:
	Q40_PAIR(DOT_VNNI)
	JNZ q40vnni_pair
	END_GROUP
	DECQ CX
	JNZ  q40vnni_group
	VZEROUPPER
	RET

// func q40VecAVX2(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)
TEXT ·q40VecAVX2(SB), NOSPLIT, $64-64
	ARGS
	NIBBLE_MASK
	WORD_ONES

q40avx2_group:
	START_GROUP

q40avx2_pair:
	Q40_PAIR(DOT_AVX2)
	JNZ q40avx2_pair
	END_GROUP
	DECQ CX
	JNZ  q40avx2_group
	VZEROUPPER
	RET

// Q8_0 with VNNI: the signed weights are made unsigned by adding 128
// (flipping their top bit, Y15), so the integer sums start at −128 times
// the input's sums of 4 quants.
#define Q80_ROW_VNNI(i, acc) \
	VPXOR   16+64*i(SI), Y15, Y9;  \
	VPXOR   48+64*i(SI), Y15, Y10; \
	VMOVDQA Y13, Y11;              \
	VMOVDQA Y6, Y12;               \
	DOT_VNNI;                      \
	SCALE_ADD(i, acc)

// func q80VecVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)
TEXT ·q80VecVNNI(SB), NOSPLIT, $64-64
	ARGS
	MOVQ         $0x8080808080808080, AX
	MOVQ         AX, X15
	VPBROADCASTQ X15, Y15

q80vnni_group:
	START_GROUP

q80vnni_pair:
	PREFETCH5
	PAIR_SCALES(272)
	BIASES(7)
	Q80_ROW_VNNI(0, Y0)
	Q80_ROW_VNNI(1, Y1)
	Q80_ROW_VNNI(2, Y2)
	Q80_ROW_VNNI(3, Y3)
	NEXT_PAIR(272)
	JNZ q80vnni_pair
	END_GROUP
	DECQ CX
	JNZ  q80vnni_group
	VZEROUPPER
	RET

// Q8_0 with AVX2: |w| times x with w's sign; each product's 16-bit pair
// sums are below 2^15 (the input's quants are at most 127 in size, the
// weights' at most 128).
#define Q80_HALF_AVX2(off, xs, dst) \
	VPSIGNB    off(SI), xs, Y9;   \
	VPABSB     off(SI), dst;      \
	VPMADDUBSW Y9, dst, dst;      \
	VPMADDWD   Y14, dst, dst

#define Q80_ROW_AVX2(i, acc) \
	Q80_HALF_AVX2(16+64*i, Y7, Y11); \
	Q80_HALF_AVX2(48+64*i, Y8, Y12); \
	SCALE_ADD(i, acc)

// func q80VecAVX2(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)
TEXT ·q80VecAVX2(SB), NOSPLIT, $64-64
	ARGS
	WORD_ONES

q80avx2_group:
	START_GROUP

q80avx2_pair:
	PREFETCH5
	PAIR_SCALES(272)
	Q80_ROW_AVX2(0, Y0)
	Q80_ROW_AVX2(1, Y1)
	Q80_ROW_AVX2(2, Y2)
	Q80_ROW_AVX2(3, Y3)
	NEXT_PAIR(272)
	JNZ q80avx2_pair
	END_GROUP
	DECQ CX
	JNZ  q80avx2_group
	VZEROUPPER
	RET

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET
