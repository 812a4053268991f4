#include "textflag.h"

// The products of Q4_0, Q4_1 and Q8_0 matrices with one input, a group of
// 4 rows at a time, in the layout of q32.go: for each pair of blocks,
// the 8 scales of the group (4 rows × 2 blocks) are one VCVTPH2PS; times
// the input's scales they are S, with row i's two in lanes i and 4+i, and
// VPERMILPS spreads them over the lanes of the row's integer sums, whose
// low half is the first block and high half the second. Each row is
// summed the same way whatever the other three are:
//
//	acc (8 lanes) += S_row · float(the 8 integer sums), pair by pair
//	sum = ((acc0+acc1)+(acc2+acc3)) + ((acc4+acc5)+(acc6+acc7)) + min terms
//
// All of them take
//
//	func(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)
//
// with w the first group's weights (groups follow each other), x, d, s
// and sum the input's quants, scales, scaled sums and lane sums (Vec),
// and out the 4·groups results. The VNNI ones need AVX-512 VNNI and VL,
// the others AVX2, FMA and F16C; for the same arguments both give the
// same bits, since the integer sums are exact and the float operations
// the same.

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

#define START_GROUP \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; \
	MOVQ   x+24(FP), R8; \
	MOVQ   d+32(FP), R9;  \
	MOVQ   s+40(FP), R10; \
	MOVQ   sum+48(FP), R11; \
	MOVQ   BX, DX

// END_GROUP adds up each row's 8 lanes (and the min terms of Y4, row i's
// in lanes i and 4+i), stores the 4 sums and moves on.
#define END_GROUP \
	VHADDPS      Y1, Y0, Y0; \
	VHADDPS      Y3, Y2, Y2; \
	VHADDPS      Y2, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0; \
	VEXTRACTF128 $1, Y4, X5; \
	VADDPS       X5, X4, X4; \
	VADDPS       X4, X0, X0; \
	VMOVUPS      X0, (DI);   \
	ADDQ         $16, DI

// PAIR_SCALES sets Y5 to the pair's scales S, and loads the input's
// quants: Y7 numbers 0–15 of both blocks, Y8 numbers 16–31.
#define PAIR_SCALES \
	VCVTPH2PS (SI), Y5;      \
	VMULPS    (R9), Y5, Y5;  \
	VMOVDQU   (R8), Y7;      \
	VMOVDQU   32(R8), Y8

// BIAS sets Y13 to −2^k times the input's lane sums: the integer sums
// start there, for weights stored with an offset of 2^k.
#define BIAS(k) \
	VMOVDQU (R11), Y13;         \
	VPSLLD  $k, Y13, Y13;       \
	VPXOR   Y12, Y12, Y12;      \
	VPSUBD  Y13, Y12, Y13

#define NEXT_PAIR(bytes) \
	ADDQ $bytes, SI; \
	ADDQ $64, R8;    \
	ADDQ $32, R9;    \
	ADDQ $32, R10;   \
	ADDQ $32, R11;   \
	DECQ DX

// SCALE_ADD adds row i's integer sums in Y11, scaled, to its accumulator.
#define SCALE_ADD(imm, acc) \
	VCVTDQ2PS   Y11, Y11;        \
	VPERMILPS   $imm, Y5, Y12;   \
	VFMADD231PS Y12, Y11, acc

// NIBBLES sets Y9 and Y10 to the low and high nibbles of 32 bytes at off.
#define NIBBLES(off) \
	VMOVDQU off(SI), Y9;   \
	VPSRLW  $4, Y9, Y10;   \
	VPAND   Y15, Y9, Y9;   \
	VPAND   Y15, Y10, Y10

// Integer sums of unsigned Y9, Y10 with signed Y7, Y8, added to Y11:
// with VNNI, or with AVX2 (Y14 holds 16-bit ones; the 16-bit sums cannot
// overflow when the unsigned bytes are below 128).
#define DOT_VNNI \
	VPDPBUSD Y7, Y9, Y11; \
	VPDPBUSD Y8, Y10, Y11

#define DOT_AVX2 \
	VPMADDUBSW Y7, Y9, Y9;    \
	VPMADDUBSW Y8, Y10, Y10;  \
	VPADDW     Y10, Y9, Y9;   \
	VPMADDWD   Y14, Y9, Y9;   \
	VPADDD     Y9, Y11, Y11

#define NIBBLE_MASK \
	MOVQ         $0x0f0f0f0f0f0f0f0f, AX; \
	MOVQ         AX, X15;                 \
	VPBROADCASTQ X15, Y15

#define WORD_ONES \
	MOVQ         $0x0001000100010001, AX; \
	MOVQ         AX, X14;                 \
	VPBROADCASTQ X14, Y14

// Q4_1: the integer sums start at 0; the minimums times the input's
// scaled sums go to Y4.
#define Q41_ROW(dot, i, imm, acc) \
	NIBBLES(32+32*i);         \
	VPXOR  Y11, Y11, Y11;     \
	dot;                      \
	SCALE_ADD(imm, acc)

#define Q41_PAIR(dot) \
	PREFETCH3;                       \
	PAIR_SCALES;                     \
	VCVTPH2PS   16(SI), Y6;          \
	VFMADD231PS (R10), Y6, Y4;       \
	Q41_ROW(dot, 0, 0x00, Y0);       \
	Q41_ROW(dot, 1, 0x55, Y1);       \
	Q41_ROW(dot, 2, 0xaa, Y2);       \
	Q41_ROW(dot, 3, 0xff, Y3);       \
	NEXT_PAIR(160)

// Q4_0: the quants stand for q − 8, so the integer sums start at −8
// times the input's lane sums.
#define Q40_ROW(dot, i, imm, acc) \
	NIBBLES(16+32*i);         \
	VMOVDQA Y13, Y11;         \
	dot;                      \
	SCALE_ADD(imm, acc)

#define Q40_PAIR(dot) \
	PREFETCH3;                       \
	PAIR_SCALES;                     \
	BIAS(3);                         \
	Q40_ROW(dot, 0, 0x00, Y0);       \
	Q40_ROW(dot, 1, 0x55, Y1);       \
	Q40_ROW(dot, 2, 0xaa, Y2);       \
	Q40_ROW(dot, 3, 0xff, Y3);       \
	NEXT_PAIR(144)

// func q41VecVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)
TEXT ·q41VecVNNI(SB), NOSPLIT, $0-64
	ARGS
	NIBBLE_MASK

q41vnni_group:
	START_GROUP

q41vnni_pair:
	Q41_PAIR(DOT_VNNI)
	JNZ q41vnni_pair
	END_GROUP
	DECQ CX
	JNZ  q41vnni_group
	VZEROUPPER
	RET

// func q41VecAVX2(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)
TEXT ·q41VecAVX2(SB), NOSPLIT, $0-64
	ARGS
	NIBBLE_MASK
	WORD_ONES

q41avx2_group:
	START_GROUP

q41avx2_pair:
	Q41_PAIR(DOT_AVX2)
	JNZ q41avx2_pair
	END_GROUP
	DECQ CX
	JNZ  q41avx2_group
	VZEROUPPER
	RET

// func q40VecVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)
TEXT ·q40VecVNNI(SB), NOSPLIT, $0-64
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
TEXT ·q40VecAVX2(SB), NOSPLIT, $0-64
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
// the input's lane sums.
#define Q80_ROW_VNNI(i, imm, acc) \
	VPXOR    16+64*i(SI), Y15, Y9;  \
	VPXOR    48+64*i(SI), Y15, Y10; \
	VMOVDQA  Y13, Y11;              \
	DOT_VNNI;                       \
	SCALE_ADD(imm, acc)

// func q80VecVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)
TEXT ·q80VecVNNI(SB), NOSPLIT, $0-64
	ARGS
	MOVQ         $0x8080808080808080, AX
	MOVQ         AX, X15
	VPBROADCASTQ X15, Y15

q80vnni_group:
	START_GROUP

q80vnni_pair:
	PREFETCH5
	PAIR_SCALES
	BIAS(7)
	Q80_ROW_VNNI(0, 0x00, Y0)
	Q80_ROW_VNNI(1, 0x55, Y1)
	Q80_ROW_VNNI(2, 0xaa, Y2)
	Q80_ROW_VNNI(3, 0xff, Y3)
	NEXT_PAIR(272)
	JNZ q80vnni_pair
	END_GROUP
	DECQ CX
	JNZ  q80vnni_group
	VZEROUPPER
	RET

// Q8_0 with AVX2: |w| times x with w's sign; each product's 16-bit pair
// sums are below 2^15 (the input's quants are at most 127 in size), but
// two of them added might not be, so each is widened first.
#define Q80_HALF_AVX2(off, xs, dst) \
	VPSIGNB    off(SI), xs, Y12;  \
	VPABSB     off(SI), dst;      \
	VPMADDUBSW Y12, dst, dst;     \
	VPMADDWD   Y14, dst, dst

#define Q80_ROW_AVX2(i, imm, acc) \
	Q80_HALF_AVX2(16+64*i, Y7, Y9);  \
	Q80_HALF_AVX2(48+64*i, Y8, Y10); \
	VPADDD Y10, Y9, Y11;             \
	SCALE_ADD(imm, acc)

// func q80VecAVX2(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, out *float32)
TEXT ·q80VecAVX2(SB), NOSPLIT, $0-64
	ARGS
	WORD_ONES

q80avx2_group:
	START_GROUP

q80avx2_pair:
	PREFETCH5
	PAIR_SCALES
	Q80_ROW_AVX2(0, 0x00, Y0)
	Q80_ROW_AVX2(1, 0x55, Y1)
	Q80_ROW_AVX2(2, 0xaa, Y2)
	Q80_ROW_AVX2(3, 0xff, Y3)
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
