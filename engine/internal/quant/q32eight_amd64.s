#include "textflag.h"

// The products of Q4_0, Q4_1 and Q8_0 matrices with 8 inputs at once, a
// group of 4 rows at a time, with AVX-512 VNNI on whole 512-bit
// registers. Every number goes through the operations of q32_amd64.s
// (and llama.cpp's dot products), lane for lane, so each result is bit
// for bit what the one-input kernel gives; what changes is how many
// lanes one instruction carries.
//
// A register holds two rows' 8 sums with one input: lanes 0–7 row 2k's,
// lanes 8–15 row 2k+1's (k = 0 for rows 0 and 1, 1 for rows 2 and 3).
// Two rows' quants of a block are then one register (Q4_0 and Q4_1 store
// a group's rows one after another, so rows 0 and 1 are 64 bytes in a
// row), an input's block is 32 bytes loaded into both halves, and the
// products of scales d_w·d_x are a register of row 2k's scale 8 times
// and row 2k+1's 8 times, times the input's scale broadcast from memory.
// Each block of each (row, input) costs a VPDPBUSD, a VCVTDQ2PS, a VMULPS
// and a VFMADD231PS for 8 lanes of 4 numbers: two rows at a time, twice
// the lanes of the 256-bit kernels, and this CPU runs two of each a cycle.
//
// All of them take
//
//	func(groups, pairs int, w *byte, x *int8, d *float32, aux *byte, out *float32, ldo int)
//
// with x, d and aux an octet of inputs laid out by Vec.gatherOctets (the
// quants of input t's block h of a pair at 64t+32h, its scale at 8t+4h;
// aux: for Q4_1 the scaled sums s4 of the 4 inputs of quad q at
// 128q+64h, for Q4_0 and Q8_0 the biases b3 or b7 at 64t+32h), and
// out[t·ldo + 4g + i] the result for row i of group g and input t.
//
// Registers: SI the weights, CX the groups left, DX the pairs left of the
// group, R8 the quants, R9 the scales and R10 aux of the pair; Z0–Z7 the
// sums of rows 0 and 1 with inputs 0–7, Z8–Z15 of rows 2 and 3; Z16–Z19
// the weights' quants (rows 0 and 1 of block 0, of block 1, rows 2 and 3
// of block 0, of block 1), Z20–Z23 their scales in the same order;
// Z24–Z28 scratch; Z29 and Z30 the minimum terms (Q4_1) of inputs 0–3
// and 4–7 (lanes 4t'+i for input t' of the four and row i); Z31 a byte
// mask. The stack holds the pair's scales (and minimums) as float32.

// START_GROUP zeroes the sums and points at the inputs' first pair.
#define START_GROUP \
	VPXORD Z0, Z0, Z0;   \
	VPXORD Z1, Z1, Z1;   \
	VPXORD Z2, Z2, Z2;   \
	VPXORD Z3, Z3, Z3;   \
	VPXORD Z4, Z4, Z4;   \
	VPXORD Z5, Z5, Z5;   \
	VPXORD Z6, Z6, Z6;   \
	VPXORD Z7, Z7, Z7;   \
	VPXORD Z8, Z8, Z8;   \
	VPXORD Z9, Z9, Z9;   \
	VPXORD Z10, Z10, Z10; \
	VPXORD Z11, Z11, Z11; \
	VPXORD Z12, Z12, Z12; \
	VPXORD Z13, Z13, Z13; \
	VPXORD Z14, Z14, Z14; \
	VPXORD Z15, Z15, Z15; \
	VPXORD Z29, Z29, Z29; \
	VPXORD Z30, Z30, Z30; \
	MOVQ   x+24(FP), R8;  \
	MOVQ   d+32(FP), R9;  \
	MOVQ   aux+40(FP), R10; \
	MOVQ   pairs+8(FP), DX

// ROW_SCALES sets dst to row a's scale (float32 at a(SP)) 8 times, then
// row b's 8 times.
#define ROW_SCALES(a, b, dst) \
	VBROADCASTSS a(SP), dst;  \
	VBROADCASTSS b(SP), Y24;  \
	VINSERTF32X8 $1, Y24, dst, dst

// SCALES converts the pair's 8 scales (row i of block h at 2(i+4h)) to
// float32 on the stack and makes Z20–Z23.
#define SCALES \
	VCVTPH2PS (SI), Y24;    \
	VMOVUPS   Y24, (SP);    \
	ROW_SCALES(0, 4, Z20);  \
	ROW_SCALES(16, 20, Z21); \
	ROW_SCALES(8, 12, Z22); \
	ROW_SCALES(24, 28, Z23)

// NIBBLES sets lo and hi to the low and high nibbles of 64 bytes at off:
// two rows' quants of the pair's first block and of its second.
#define NIBBLES(off, lo, hi) \
	VMOVDQU32 off(SI), lo; \
	VPSRLW    $4, lo, hi;  \
	VPANDD    Z31, lo, lo; \
	VPANDD    Z31, hi, hi

// BYTES80 sets dst to the 32 bytes at a then the 32 at b, made unsigned
// by adding 128 (Z31 flips their top bit): Q8_0's quants of two rows.
#define BYTES80(a, b, dst) \
	VBROADCASTI32X8 a(SI), dst; \
	VINSERTI32X8  $1, b(SI), dst, dst; \
	VPXORD        Z31, dst, dst

// ONE adds input t's block h to rows 0 and 1 (a0) and rows 2 and 3 (a1):
// the input's quants in both halves of Z24, each integer sum started by
// init (zero or the input's biases), converted, times the product of the
// scales, added.
#define ONE(init, t, h, w0, w1, s0, s1, a0, a1) \
	VBROADCASTI32X8 64*t+32*h(R8), Z24; \
	init(t, h, Z25);                       \
	VPDPBUSD        Z24, w0, Z25;          \
	VCVTDQ2PS       Z25, Z25;              \
	VMULPS.BCST     8*t+4*h(R9), s0, Z26; \
	VFMADD231PS     Z26, Z25, a0;          \
	init(t, h, Z27);                       \
	VPDPBUSD        Z24, w1, Z27;          \
	VCVTDQ2PS       Z27, Z27;              \
	VMULPS.BCST     8*t+4*h(R9), s1, Z28; \
	VFMADD231PS     Z28, Z27, a1

#define ZERO(t, h, r) VPXORD r, r, r
#define BIAS(t, h, r) VBROADCASTI32X8 64*t+32*h(R10), r

// BLOCK is ONE for the 8 inputs and block h.
#define BLOCK(init, h, w0, w1, s0, s1) \
	ONE(init, 0, h, w0, w1, s0, s1, Z0, Z8);  \
	ONE(init, 1, h, w0, w1, s0, s1, Z1, Z9);  \
	ONE(init, 2, h, w0, w1, s0, s1, Z2, Z10); \
	ONE(init, 3, h, w0, w1, s0, s1, Z3, Z11); \
	ONE(init, 4, h, w0, w1, s0, s1, Z4, Z12); \
	ONE(init, 5, h, w0, w1, s0, s1, Z5, Z13); \
	ONE(init, 6, h, w0, w1, s0, s1, Z6, Z14); \
	ONE(init, 7, h, w0, w1, s0, s1, Z7, Z15)

// MINS adds the minimums times the inputs' scaled sums (Q4_1), the first
// block's, then the second's, as q32_amd64.s does for each (row, input).
#define MINS \
	VCVTPH2PS       16(SI), Y24; \
	VMOVUPS         Y24, 32(SP); \
	VBROADCASTF32X4 32(SP), Z25; \
	VBROADCASTF32X4 48(SP), Z26; \
	VFMADD231PS     (R10), Z25, Z29; \
	VFMADD231PS     64(R10), Z26, Z29; \
	VFMADD231PS     128(R10), Z25, Z30; \
	VFMADD231PS     192(R10), Z26, Z30

#define NEXT_PAIR(bytes, auxBytes) \
	ADDQ $bytes, SI;    \
	ADDQ $512, R8;      \
	ADDQ $64, R9;       \
	ADDQ $auxBytes, R10; \
	DECQ DX

// END_ONE adds up input t's sums, rows 0 and 1 in a0 and rows 2 and 3 in
// a1, as q32_amd64.s's END_SUMS does: ((a0+a4)+(a2+a6))+((a1+a5)+(a3+a7))
// for the 8 lanes a of each row, in 4 rows at once; then mins (the
// minimum terms, Q4_1), and stores the 4 results at dst.
#define END_ONE(a0, a1, mins, dst) \
	VSHUFF32X4 $0x88, a1, a0, Z24; \
	VSHUFF32X4 $0xdd, a1, a0, Z25; \
	VADDPS     Z25, Z24, Z24;      \
	VPERMILPS  $0x4e, Z24, Z25;    \
	VADDPS     Z25, Z24, Z24;      \
	VPERMILPS  $0xb1, Z24, Z25;    \
	VADDPS     Z25, Z24, Z24;      \
	VPERMPS    Z24, Z28, Z24;      \
	mins;                          \
	VMOVUPS    X24, dst

// MINS_Tk adds input k's minimum terms, in 128 bits of Z29 or Z30.
#define MINS_T0 VADDPS X29, X24, X24
#define MINS_T1 VEXTRACTF32X4 $1, Z29, X25; VADDPS X25, X24, X24
#define MINS_T2 VEXTRACTF32X4 $2, Z29, X25; VADDPS X25, X24, X24
#define MINS_T3 VEXTRACTF32X4 $3, Z29, X25; VADDPS X25, X24, X24
#define MINS_T4 VADDPS X30, X24, X24
#define MINS_T5 VEXTRACTF32X4 $1, Z30, X25; VADDPS X25, X24, X24
#define MINS_T6 VEXTRACTF32X4 $2, Z30, X25; VADDPS X25, X24, X24
#define MINS_T7 VEXTRACTF32X4 $3, Z30, X25; VADDPS X25, X24, X24

// END_GROUP stores the group's 32 results (mK the minimum terms of input
// K, or nothing) and moves out on.
#define END_GROUP(m0, m1, m2, m3, m4, m5, m6, m7) \
	VMOVDQU32 rowsOf4<>(SB), Z28;   \
	MOVQ      ldo+56(FP), R12;      \
	SHLQ      $2, R12;              \
	LEAQ      (DI)(R12*2), R13;     \
	ADDQ      R12, R13;             \
	LEAQ      (R13)(R12*2), R11;    \
	ADDQ      R12, R11;             \
	END_ONE(Z0, Z8, m0, (DI));      \
	END_ONE(Z1, Z9, m1, (DI)(R12*1)); \
	END_ONE(Z2, Z10, m2, (DI)(R12*2)); \
	END_ONE(Z3, Z11, m3, (R13));    \
	END_ONE(Z4, Z12, m4, (DI)(R12*4)); \
	END_ONE(Z5, Z13, m5, (R13)(R12*2)); \
	END_ONE(Z6, Z14, m6, (R11));    \
	END_ONE(Z7, Z15, m7, (R13)(R12*4)); \
	ADDQ      $16, DI

// The elements 0, 4, 8 and 12 of a register: a row's sum in each 128
// bits after END_ONE's additions.
DATA rowsOf4<>+0(SB)/4, $0
DATA rowsOf4<>+4(SB)/4, $4
DATA rowsOf4<>+8(SB)/4, $8
DATA rowsOf4<>+12(SB)/4, $12
GLOBL rowsOf4<>(SB), RODATA|NOPTR, $64

#define MASK(bits) \
	MOVQ         $bits, R11; \
	VPBROADCASTQ R11, Z31

// func q41EightVNNI(groups, pairs int, w *byte, x *int8, d *float32, aux *byte, out *float32, ldo int)
TEXT ·q41EightVNNI(SB), NOSPLIT, $64-64
	MOVQ groups+0(FP), CX
	MOVQ w+16(FP), SI
	MOVQ out+48(FP), DI
	MASK(0x0f0f0f0f0f0f0f0f)

q41e_group:
	START_GROUP

q41e_pair:
	SCALES
	MINS
	NIBBLES(32, Z16, Z17)
	NIBBLES(96, Z18, Z19)
	BLOCK(ZERO, 0, Z16, Z18, Z20, Z22)
	BLOCK(ZERO, 1, Z17, Z19, Z21, Z23)
	NEXT_PAIR(160, 256)
	JNZ q41e_pair
	END_GROUP(MINS_T0, MINS_T1, MINS_T2, MINS_T3, MINS_T4, MINS_T5, MINS_T6, MINS_T7)
	DECQ CX
	JNZ  q41e_group
	VZEROUPPER
	RET

// func q40EightVNNI(groups, pairs int, w *byte, x *int8, d *float32, aux *byte, out *float32, ldo int)
TEXT ·q40EightVNNI(SB), NOSPLIT, $64-64
	MOVQ groups+0(FP), CX
	MOVQ w+16(FP), SI
	MOVQ out+48(FP), DI
	MASK(0x0f0f0f0f0f0f0f0f)

q40e_group:
	START_GROUP

q40e_pair:
	SCALES
	NIBBLES(16, Z16, Z17)
	NIBBLES(80, Z18, Z19)
	BLOCK(BIAS, 0, Z16, Z18, Z20, Z22)
	BLOCK(BIAS, 1, Z17, Z19, Z21, Z23)
	NEXT_PAIR(144, 512)
	JNZ q40e_pair
	END_GROUP(NOP, NOP, NOP, NOP, NOP, NOP, NOP, NOP)
	DECQ CX
	JNZ  q40e_group
	VZEROUPPER
	RET

// func q80EightVNNI(groups, pairs int, w *byte, x *int8, d *float32, aux *byte, out *float32, ldo int)
TEXT ·q80EightVNNI(SB), NOSPLIT, $64-64
	MOVQ groups+0(FP), CX
	MOVQ w+16(FP), SI
	MOVQ out+48(FP), DI
	MASK(0x8080808080808080)

q80e_group:
	START_GROUP

q80e_pair:
	SCALES
	BYTES80(16, 80, Z16)
	BYTES80(48, 112, Z17)
	BYTES80(144, 208, Z18)
	BYTES80(176, 240, Z19)
	BLOCK(BIAS, 0, Z16, Z18, Z20, Z22)
	BLOCK(BIAS, 1, Z17, Z19, Z21, Z23)
	NEXT_PAIR(272, 512)
	JNZ q80e_pair
	END_GROUP(NOP, NOP, NOP, NOP, NOP, NOP, NOP, NOP)
	DECQ CX
	JNZ  q80e_group
	VZEROUPPER
	RET
