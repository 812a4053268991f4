#include "textflag.h"

// The products of Q4_0, Q4_1 and Q8_0 matrices with 4 inputs at once, a
// group of 4 rows at a time, with AVX-512 VNNI and VL: each row's quants
// are unpacked once for the 4 inputs, and the 16 sums stay in Y16–Y31
// (acc of row i and input t in Y16+4t+i) until the group ends. Every
// number goes through the same operations as in q32_amd64.s, so each
// result is bit for bit what the one-input kernel gives.
//
// All of them take
//
//	func(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, stride int, out *float32, ldo int)
//
// with x, d, s and sum input 0's, the others following at stride pairs
// of blocks from each other (64·stride quants, 8·stride of the others),
// and out[t·ldo + 4g + i] the result for row i of group g and input t.
//
// Registers: SI the weights, CX the groups left, DX the pairs left of
// the group; R8 input 0's quants and R14 input 3's, R12 an input's
// quants' stride; R9 input 0's scales, R15 input 3's, R13 their stride;
// R10 (s or sum) input 0's, AX input 3's; Y0–Y3 the inputs' pair scales
// S, Y4–Y7 their minimum terms (Q4_1) or biases (Q4_0, Q8_0), Y8 and Y9
// a row's quants, Y15 a byte mask.

#define ARGS \
	MOVQ groups+0(FP), CX; \
	MOVQ w+16(FP), SI;     \
	MOVQ stride+56(FP), R12; \
	SHLQ $6, R12;          \
	MOVQ stride+56(FP), R13; \
	SHLQ $5, R13

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
	LEAQ        (R10)(R13*2), AX; \
	ADDQ        R13, AX; \
	MOVQ        pairs+8(FP), DX

// PAIR_SCALES sets Y0–Y3 to the 4 inputs' pair scales S.
#define PAIR_SCALES \
	VCVTPH2PS (SI), Y12; \
	VMULPS    (R9), Y12, Y0; \
	VMULPS    (R9)(R13*1), Y12, Y1; \
	VMULPS    (R9)(R13*2), Y12, Y2; \
	VMULPS    (R15), Y12, Y3

// MINS adds the minimums times each input's scaled sums (Q4_1).
#define MINS \
	VCVTPH2PS   16(SI), Y12; \
	VFMADD231PS (R10), Y12, Y4; \
	VFMADD231PS (R10)(R13*1), Y12, Y5; \
	VFMADD231PS (R10)(R13*2), Y12, Y6; \
	VFMADD231PS (AX), Y12, Y7

// BIASES sets Y4–Y7 to −2^k times each input's lane sums.
#define BIAS1(src, dst, k) \
	VMOVDQU src, dst; \
	VPSLLD  $k, dst, dst; \
	VPSUBD  dst, Y14, dst

#define BIASES(k) \
	VPXOR Y14, Y14, Y14; \
	BIAS1((R10), Y4, k); \
	BIAS1((R10)(R13*1), Y5, k); \
	BIAS1((R10)(R13*2), Y6, k); \
	BIAS1((AX), Y7, k)

#define NEXT_PAIR(bytes) \
	ADDQ $bytes, SI; \
	ADDQ $64, R8;    \
	ADDQ $64, R14;   \
	ADDQ $32, R9;    \
	ADDQ $32, R15;   \
	ADDQ $32, R10;   \
	ADDQ $32, AX;    \
	DECQ DX

// ONE adds row i's (quants in Y8, Y9) integer sums with one input (its
// quants at xa and xb), started at init, scaled by S, to acc.
#define ONE(init, xa, xb, S, imm, acc) \
	init;                         \
	VPDPBUSD    xa, Y8, Y10;      \
	VPDPBUSD    xb, Y9, Y10;      \
	VCVTDQ2PS   Y10, Y10;         \
	VPERMILPS   $imm, S, Y11;     \
	VFMADD231PS Y11, Y10, acc

#define ZERO VPXOR Y10, Y10, Y10

// FOUR is ONE for the 4 inputs; init0..3 start each one's sums.
#define FOUR(imm, a0, a1, a2, a3, init0, init1, init2, init3) \
	ONE(init0, (R8), 32(R8), Y0, imm, a0); \
	ONE(init1, (R8)(R12*1), 32(R8)(R12*1), Y1, imm, a1); \
	ONE(init2, (R8)(R12*2), 32(R8)(R12*2), Y2, imm, a2); \
	ONE(init3, (R14), 32(R14), Y3, imm, a3)

// NIBBLES sets Y8 and Y9 to the low and high nibbles of 32 bytes at off.
#define NIBBLES(off) \
	VMOVDQU off(SI), Y8;  \
	VPSRLW  $4, Y8, Y9;   \
	VPAND   Y15, Y8, Y8;  \
	VPAND   Y15, Y9, Y9

// END_ONE adds up input t's sums (rows in a0..a3, minimum terms or zero
// in m, whose low half is mx) as q32_amd64.s's END_GROUP does and stores
// them at dst.
#define END_ONE(a0, a1, a2, a3, m, mx, dst) \
	VMOVAPS      a0, Y8;      \
	VMOVAPS      a1, Y9;      \
	VMOVAPS      a2, Y10;     \
	VMOVAPS      a3, Y11;     \
	VHADDPS      Y9, Y8, Y8;  \
	VHADDPS      Y11, Y10, Y10; \
	VHADDPS      Y10, Y8, Y8; \
	VEXTRACTF128 $1, Y8, X9;  \
	VADDPS       X9, X8, X8;  \
	VEXTRACTF128 $1, m, X9;   \
	VADDPS       X9, mx, X9;  \
	VADDPS       X9, X8, X8;  \
	VMOVUPS      X8, dst

// END_GROUP stores the group's 16 results and moves out on.
#define END_GROUP \
	MOVQ    ldo+72(FP), DX; \
	SHLQ    $2, DX; \
	LEAQ    (DI)(DX*2), AX; \
	ADDQ    DX, AX; \
	END_ONE(Y16, Y17, Y18, Y19, Y4, X4, (DI)); \
	END_ONE(Y20, Y21, Y22, Y23, Y5, X5, (DI)(DX*1)); \
	END_ONE(Y24, Y25, Y26, Y27, Y6, X6, (DI)(DX*2)); \
	END_ONE(Y28, Y29, Y30, Y31, Y7, X7, (AX)); \
	ADDQ    $16, DI

#define NIBBLE_MASK \
	MOVQ         $0x0f0f0f0f0f0f0f0f, AX; \
	MOVQ         AX, X15;                 \
	VPBROADCASTQ X15, Y15

// func q41BatchVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, stride int, out *float32, ldo int)
TEXT ·q41BatchVNNI(SB), NOSPLIT, $0-80
	ARGS
	MOVQ out+64(FP), DI
	NIBBLE_MASK

q41b_group:
	START_GROUP(s+40(FP))

q41b_pair:
	PAIR_SCALES
	MINS
	NIBBLES(32)
	FOUR(0x00, Y16, Y20, Y24, Y28, ZERO, ZERO, ZERO, ZERO)
	NIBBLES(64)
	FOUR(0x55, Y17, Y21, Y25, Y29, ZERO, ZERO, ZERO, ZERO)
	NIBBLES(96)
	FOUR(0xaa, Y18, Y22, Y26, Y30, ZERO, ZERO, ZERO, ZERO)
	NIBBLES(128)
	FOUR(0xff, Y19, Y23, Y27, Y31, ZERO, ZERO, ZERO, ZERO)
	NEXT_PAIR(160)
	JNZ q41b_pair
	END_GROUP
	DECQ CX
	JNZ  q41b_group
	VZEROUPPER
	RET

// Q4_0 and Q8_0 start each input's sums at its bias, and add no minimum
// terms: Y4–Y7 are zeroed before the sums are added up.
#define COPY(b) VMOVDQA b, Y10

#define ZERO_BIASES \
	VXORPS Y4, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
	VXORPS Y6, Y6, Y6; \
	VXORPS Y7, Y7, Y7

// func q40BatchVNNI(groups, pairs int, w *byte, x *int8, d, s *float32, sum *int32, stride int, out *float32, ldo int)
TEXT ·q40BatchVNNI(SB), NOSPLIT, $0-80
	ARGS
	MOVQ out+64(FP), DI
	NIBBLE_MASK

q40b_group:
	START_GROUP(sum+48(FP))

q40b_pair:
	PAIR_SCALES
	BIASES(3)
	NIBBLES(16)
	FOUR(0x00, Y16, Y20, Y24, Y28, COPY(Y4), COPY(Y5), COPY(Y6), COPY(Y7))
	NIBBLES(48)
	FOUR(0x55, Y17, Y21, Y25, Y29, COPY(Y4), COPY(Y5), COPY(Y6), COPY(Y7))
	NIBBLES(80)
	FOUR(0xaa, Y18, Y22, Y26, Y30, COPY(Y4), COPY(Y5), COPY(Y6), COPY(Y7))
	NIBBLES(112)
	FOUR(0xff, Y19, Y23, Y27, Y31, COPY(Y4), COPY(Y5), COPY(Y6), COPY(Y7))
	NEXT_PAIR(144)
	JNZ q40b_pair
	ZERO_BIASES
	END_GROUP
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
TEXT ·q80BatchVNNI(SB), NOSPLIT, $0-80
	ARGS
	MOVQ         out+64(FP), DI
	MOVQ         $0x8080808080808080, AX
	MOVQ         AX, X15
	VPBROADCASTQ X15, Y15

q80b_group:
	START_GROUP(sum+48(FP))

q80b_pair:
	PAIR_SCALES
	BIASES(7)
	BYTES80(16)
	FOUR(0x00, Y16, Y20, Y24, Y28, COPY(Y4), COPY(Y5), COPY(Y6), COPY(Y7))
	BYTES80(80)
	FOUR(0x55, Y17, Y21, Y25, Y29, COPY(Y4), COPY(Y5), COPY(Y6), COPY(Y7))
	BYTES80(144)
	FOUR(0xaa, Y18, Y22, Y26, Y30, COPY(Y4), COPY(Y5), COPY(Y6), COPY(Y7))
	BYTES80(208)
	FOUR(0xff, Y19, Y23, Y27, Y31, COPY(Y4), COPY(Y5), COPY(Y6), COPY(Y7))
	NEXT_PAIR(272)
	JNZ q80b_pair
	ZERO_BIASES
	END_GROUP
	DECQ CX
	JNZ  q80b_group
	VZEROUPPER
	RET
