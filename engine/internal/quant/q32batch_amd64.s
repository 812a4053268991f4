#include "textflag.h"

// The products of Q4_0, Q4_1 and Q8_0 matrices with 4 inputs at once, a
// group of 4 rows at a time, with AVX-512 VNNI and VL: each row's quants
// are unpacked once for the 4 inputs, and the 16 rows of 8 accumulators
// stay in Y16–Y31 (row i and input t in Y16+4t+i) until the group ends.
// Every number goes through the same operations as in q32_amd64.s (and
// llama.cpp's dot products), so each result is bit for bit what the
// one-input kernel gives.
//
// All of them take
//
//	func(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, stride int, out *float32, ldo int)
//
// with x, d, s and sum input 0's, the others following at stride pairs
// of blocks from each other (64·stride quants, 8·stride scales and scaled
// sums, 16·stride sums of 4 quants), and out[t·ldo + 4g + i] the result
// for row i of group g and input t.
//
// Registers: SI the weights, CX the groups left, DX the pairs left of
// the group; R8 input 0's quants and R14 input 3's, R12 an input's
// quants' stride; R9 input 0's scales, R15 input 3's, R13 their stride;
// R10 input 0's scaled sums (Q4_1) or sums of 4 (Q4_0, Q8_0), AX input
// 3's, BX their stride; Y0–Y7 the inputs' biases, two blocks each (Q4_0,
// Q8_0), or X4–X7 their minimum terms (Q4_1); Y8 and Y9 a row's quants
// of the pair's two blocks, Y15 a byte mask. The inputs' 4 × 8 products
// of scales are on the stack, input t's at 32t in one of two slots of
// 128 bytes, computed a pair ahead into the other (as in q32_amd64.s):
// the slot of a pair is the parity of the pairs left, R11 its offset.

#define ARGS(sstride) \
	MOVQ groups+0(FP), CX; \
	MOVQ w+16(FP), SI;     \
	MOVQ stride+56(FP), R12; \
	SHLQ $6, R12;          \
	MOVQ stride+56(FP), R13; \
	SHLQ $5, R13;          \
	MOVQ stride+56(FP), BX; \
	SHLQ $sstride, BX

// START_GROUP zeroes the sums and points at the inputs' first pair; sv is
// the argument the third pointer comes from (s or sum).
#define START_GROUP(sv) \
	VPXORD      Y16, Y16, Y16; \
	VMOVDQA32   Y16, Y17; \
	VMOVDQA32   Y16, Y18; \
	VMOVDQA32   Y16, Y19; \
	VMOVDQA32   Y16, Y20; \
	VMOVDQA32   Y16, Y21; \
	VMOVDQA32   Y16, Y22; \
	VMOVDQA32   Y16, Y23; \
	VMOVDQA32   Y16, Y24; \
	VMOVDQA32   Y16, Y25; \
	VMOVDQA32   Y16, Y26; \
	VMOVDQA32   Y16, Y27; \
	VMOVDQA32   Y16, Y28; \
	VMOVDQA32   Y16, Y29; \
	VMOVDQA32   Y16, Y30; \
	VMOVDQA32   Y16, Y31; \
	VXORPS      Y4, Y4, Y4; \
	VXORPS      Y5, Y5, Y5; \
	VXORPS      Y6, Y6, Y6; \
	VXORPS      Y7, Y7, Y7; \
	MOVQ        x+24(FP), R8; \
	LEAQ        (R8)(R12*2), R14; \
	ADDQ        R12, R14; \
	MOVQ        d+32(FP), R9; \
	LEAQ        (R9)(R13*2), R15; \
	ADDQ        R13, R15; \
	MOVQ        sv, R10; \
	LEAQ        (R10)(BX*2), AX; \
	ADDQ        BX, AX; \
	MOVQ        pairs+8(FP), DX; \
	MOVQ        DX, R11; \
	ANDQ        $1, R11; \
	SHLQ        $7, R11; \
	SCALES_AT(0)

// SCALES_AT puts the 4 inputs' products of scales of the pair at off
// bytes from SI (and off/pair bytes·32 from the scales) in the slot at
// R11.
#define SCALES_AT(off) \
	VCVTPH2PS off(SI), Y12; \
	VMULPS    (R9), Y12, Y13; \
	VMOVUPS   Y13, (SP)(R11*1); \
	VMULPS    (R9)(R13*1), Y12, Y13; \
	VMOVUPS   Y13, 32(SP)(R11*1); \
	VMULPS    (R9)(R13*2), Y12, Y13; \
	VMOVUPS   Y13, 64(SP)(R11*1); \
	VMULPS    (R15), Y12, Y13; \
	VMOVUPS   Y13, 96(SP)(R11*1)

#define NEXT_SCALES(bytes) \
	VCVTPH2PS bytes(SI), Y12; \
	VMULPS    32(R9), Y12, Y13; \
	VMOVUPS   Y13, (SP)(R11*1); \
	VMULPS    32(R9)(R13*1), Y12, Y13; \
	VMOVUPS   Y13, 32(SP)(R11*1); \
	VMULPS    32(R9)(R13*2), Y12, Y13; \
	VMOVUPS   Y13, 64(SP)(R11*1); \
	VMULPS    32(R15), Y12, Y13; \
	VMOVUPS   Y13, 96(SP)(R11*1)

// PAIR_SCALES puts the next pair's products of scales in the other slot
// and points R11 at the pair's own.
#define PAIR_SCALES(bytes) \
	MOVQ DX, R11;      \
	ANDQ $1, R11;      \
	SHLQ $7, R11;      \
	XORQ $128, R11;    \
	NEXT_SCALES(bytes); \
	XORQ $128, R11

// MINS adds the minimums times each input's scaled sums (Q4_1), the first
// block's, then the second's.
#define MINS1(src, acc) \
	VFMADD231PS src, X12, acc

#define MINS \
	VCVTPH2PS    16(SI), Y12; \
	MINS1((R10), X4); \
	MINS1((R10)(BX*1), X5); \
	MINS1((R10)(BX*2), X6); \
	MINS1((AX), X7); \
	VEXTRACTF128 $1, Y12, X12; \
	MINS1(16(R10), X4); \
	MINS1(16(R10)(BX*1), X5); \
	MINS1(16(R10)(BX*2), X6); \
	MINS1(16(AX), X7)

// BIASES sets Y0–Y7 to −2^k times each input's sums of 4 quants, Y2t the
// first block's and Y2t+1 the second's.
#define BIAS1(src, dst, k) \
	VMOVDQU src, dst; \
	VPSLLD  $k, dst, dst; \
	VPSUBD  dst, Y14, dst

#define BIASES(k) \
	VPXOR Y14, Y14, Y14; \
	BIAS1((R10), Y0, k); \
	BIAS1(32(R10), Y1, k); \
	BIAS1((R10)(BX*1), Y2, k); \
	BIAS1(32(R10)(BX*1), Y3, k); \
	BIAS1((R10)(BX*2), Y4, k); \
	BIAS1(32(R10)(BX*2), Y5, k); \
	BIAS1((AX), Y6, k); \
	BIAS1(32(AX), Y7, k)

#define NEXT_PAIR(bytes, sbytes) \
	ADDQ $bytes, SI; \
	ADDQ $64, R8;    \
	ADDQ $64, R14;   \
	ADDQ $32, R9;    \
	ADDQ $32, R15;   \
	ADDQ $sbytes, R10; \
	ADDQ $sbytes, AX; \
	DECQ DX

// ONE adds row i's (quants in Y8, Y9) integer sums with input t (its
// quants at xa and xb), started at init0 and init1, scaled, to acc: the
// first block's, then the second's.
#define ONE(init0, init1, xa, xb, t, i, acc) \
	init0(Y10);                       \
	VPDPBUSD     xa, Y8, Y10;         \
	init1(Y11);                       \
	VPDPBUSD     xb, Y9, Y11;         \
	VCVTDQ2PS    Y10, Y10;            \
	VCVTDQ2PS    Y11, Y11;            \
	VBROADCASTSS 32*t+4*i(SP)(R11*1), Y13; \
	VFMADD231PS  Y13, Y10, acc;       \
	VBROADCASTSS 32*t+16+4*i(SP)(R11*1), Y13; \
	VFMADD231PS  Y13, Y11, acc

#define ZERO(r) VPXOR r, r, r

#define B0(r) VMOVDQA Y0, r
#define B1(r) VMOVDQA Y1, r
#define B2(r) VMOVDQA Y2, r
#define B3(r) VMOVDQA Y3, r
#define B4(r) VMOVDQA Y4, r
#define B5(r) VMOVDQA Y5, r
#define B6(r) VMOVDQA Y6, r
#define B7(r) VMOVDQA Y7, r

// FOUR_ZERO and FOUR_BIAS are ONE for the 4 inputs, row i, the sums
// started at zero or at each input's biases.
#define FOUR_ZERO(i, a0, a1, a2, a3) \
	ONE(ZERO, ZERO, (R8), 32(R8), 0, i, a0); \
	ONE(ZERO, ZERO, (R8)(R12*1), 32(R8)(R12*1), 1, i, a1); \
	ONE(ZERO, ZERO, (R8)(R12*2), 32(R8)(R12*2), 2, i, a2); \
	ONE(ZERO, ZERO, (R14), 32(R14), 3, i, a3)

#define FOUR_BIAS(i, a0, a1, a2, a3) \
	ONE(B0, B1, (R8), 32(R8), 0, i, a0); \
	ONE(B2, B3, (R8)(R12*1), 32(R8)(R12*1), 1, i, a1); \
	ONE(B4, B5, (R8)(R12*2), 32(R8)(R12*2), 2, i, a2); \
	ONE(B6, B7, (R14), 32(R14), 3, i, a3)

// NIBBLES sets Y8 and Y9 to the low and high nibbles of 32 bytes at off:
// the two blocks' 4-bit quants, in order.
#define NIBBLES(off) \
	VMOVDQU off(SI), Y8;  \
	VPSRLW  $4, Y8, Y9;   \
	VPAND   Y15, Y8, Y8;  \
	VPAND   Y15, Y9, Y9

// HSUM sets X8 to [(a0+a4)+(a2+a6), (a1+a5)+(a3+a7), …] for the lanes a
// of acc.
#define HSUM(acc, x) \
	VMOVAPS      acc, Y12; \
	VEXTRACTF128 $1, Y12, X13; \
	VADDPS       X13, X12, X12; \
	VMOVHLPS     X12, X12, X13; \
	VADDPS       X13, X12, x

// END_ONE adds up input t's sums (rows in a0..a3) as q32_amd64.s's
// END_SUMS does, adds mins (the minimum terms, Q4_1) and stores them at
// dst.
#define END_ONE(a0, a1, a2, a3, mins, dst) \
	HSUM(a0, X8);            \
	HSUM(a1, X9);            \
	HSUM(a2, X10);           \
	HSUM(a3, X11);           \
	VUNPCKLPS X9, X8, X8;    \
	VUNPCKLPS X11, X10, X10; \
	VMOVLHPS  X10, X8, X12;  \
	VMOVHLPS  X8, X10, X13;  \
	VADDPS    X13, X12, X12; \
	mins;                    \
	VMOVUPS   X12, dst

#define MINS_T0 VADDPS X4, X12, X12
#define MINS_T1 VADDPS X5, X12, X12
#define MINS_T2 VADDPS X6, X12, X12
#define MINS_T3 VADDPS X7, X12, X12

// END_GROUP stores the group's 16 results and moves out on; END_GROUP_MINS
// adds the minimum terms first.
#define END_GROUP(m0, m1, m2, m3) \
	MOVQ    ldo+72(FP), R11; \
	SHLQ    $2, R11; \
	LEAQ    (DI)(R11*2), R10; \
	ADDQ    R11, R10; \
	END_ONE(Y16, Y17, Y18, Y19, m0, (DI)); \
	END_ONE(Y20, Y21, Y22, Y23, m1, (DI)(R11*1)); \
	END_ONE(Y24, Y25, Y26, Y27, m2, (DI)(R11*2)); \
	END_ONE(Y28, Y29, Y30, Y31, m3, (R10)); \
	ADDQ    $16, DI

#define NIBBLE_MASK \
	MOVQ         $0x0f0f0f0f0f0f0f0f, R11; \
	MOVQ         R11, X15;                 \
	VPBROADCASTQ X15, Y15

// func q41BatchVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, stride int, out *float32, ldo int)
TEXT ·q41BatchVNNI(SB), NOSPLIT, $256-80
	ARGS(5)
	MOVQ out+64(FP), DI
	NIBBLE_MASK

q41b_group:
	START_GROUP(s+40(FP))

q41b_pair:
	PAIR_SCALES(160)
	MINS
	NIBBLES(32)
	FOUR_ZERO(0, Y16, Y20, Y24, Y28)
	NIBBLES(64)
	FOUR_ZERO(1, Y17, Y21, Y25, Y29)
	NIBBLES(96)
	FOUR_ZERO(2, Y18, Y22, Y26, Y30)
	NIBBLES(128)
	FOUR_ZERO(3, Y19, Y23, Y27, Y31)
	NEXT_PAIR(160, 32)
	JNZ q41b_pair
	END_GROUP(MINS_T0, MINS_T1, MINS_T2, MINS_T3)
	DECQ CX
	JNZ  q41b_group
	VZEROUPPER
	RET

// func q40BatchVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, stride int, out *float32, ldo int)
TEXT ·q40BatchVNNI(SB), NOSPLIT, $256-80
	ARGS(6)
	MOVQ out+64(FP), DI
	NIBBLE_MASK

q40b_group:
	START_GROUP(sum+48(FP))

q40b_pair:
	PAIR_SCALES(144)
	BIASES(3)
	NIBBLES(16)
	FOUR_BIAS(0, Y16, Y20, Y24, Y28)
	NIBBLES(48)
	FOUR_BIAS(1, Y17, Y21, Y25, Y29)
	NIBBLES(80)
	FOUR_BIAS(2, Y18, Y22, Y26, Y30)
	NIBBLES(112)
	FOUR_BIAS(3, Y19, Y23, Y27, Y31)
	NEXT_PAIR(144, 64)
	JNZ q40b_pair
	END_GROUP(NOP, NOP, NOP, NOP)
	DECQ CX
	JNZ  q40b_group
	VZEROUPPER
	RET

// Q8_0's signed quants are made unsigned by adding 128 (Y15 flips their
// top bit).
#define BYTES80(off) \
	VPXOR off(SI), Y15, Y8; \
	VPXOR off+32(SI), Y15, Y9

// func q80BatchVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, stride int, out *float32, ldo int)
TEXT ·q80BatchVNNI(SB), NOSPLIT, $256-80
	ARGS(6)
	MOVQ         out+64(FP), DI
	MOVQ         $0x8080808080808080, R11
	MOVQ         R11, X15
	VPBROADCASTQ X15, Y15

q80b_group:
	START_GROUP(sum+48(FP))

q80b_pair:
	PAIR_SCALES(272)
	BIASES(7)
	BYTES80(16)
	FOUR_BIAS(0, Y16, Y20, Y24, Y28)
	BYTES80(80)
	FOUR_BIAS(1, Y17, Y21, Y25, Y29)
	BYTES80(144)
	FOUR_BIAS(2, Y18, Y22, Y26, Y30)
	BYTES80(208)
	FOUR_BIAS(3, Y19, Y23, Y27, Y31)
	NEXT_PAIR(272, 64)
	JNZ q80b_pair
	END_GROUP(NOP, NOP, NOP, NOP)
	DECQ CX
	JNZ  q80b_group
	VZEROUPPER
	RET
