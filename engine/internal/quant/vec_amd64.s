#include "textflag.h"

// Quantizing inputs to 8 bits (Vec), with AVX2: the same operations as
// quantize8, scale32 and scaleK, 8 numbers at a time, so the same bits.
// The largest magnitude of a block is the largest of its numbers' bits
// with the sign cleared, compared as integers; then
//
//	d = amax/127 (0 if amax < 2⁻¹⁰⁰), id = 127/amax
//	q = x·id rounded to nearest, ties to even (VROUNDPS $0), or 0 if
//	    amax < 2⁻¹⁰⁰ or is not finite
//
// and a block of 32 stores d and d·Σq rounded to f16 (VCVTPS2PH $0, then
// back), a block of 256 stores 1/id.
//
// VPACKSSDW and VPACKSSWB narrow the quants to bytes within each 128-bit
// lane, leaving their groups of 4 in the order 0 2 4 6 1 3 5 7, which
// VPERMD by unpack<> puts back.

DATA unpack<>+0(SB)/4, $0
DATA unpack<>+4(SB)/4, $4
DATA unpack<>+8(SB)/4, $1
DATA unpack<>+12(SB)/4, $5
DATA unpack<>+16(SB)/4, $2
DATA unpack<>+20(SB)/4, $6
DATA unpack<>+24(SB)/4, $3
DATA unpack<>+28(SB)/4, $7
GLOBL unpack<>(SB), RODATA|NOPTR, $32

#define BROADCAST(v, reg, xreg) \
	MOVL         $v, AX;  \
	MOVL         AX, xreg; \
	VPBROADCASTD xreg, reg

// CONSTANTS sets Y15 to the magnitude mask, Y13 1.0, Y12 127.0, Y11
// 2⁻¹⁰⁰'s bits minus one, Y10 +Inf's bits, Y9 bytes of 1 and Y8 words of
// 1.
#define CONSTANTS \
	BROADCAST(0x7fffffff, Y15, X15); \
	BROADCAST(0x3f800000, Y13, X13); \
	BROADCAST(0x42fe0000, Y12, X12); \
	BROADCAST(0x0d7fffff, Y11, X11); \
	BROADCAST(0x7f800000, Y10, X10); \
	BROADCAST(0x01010101, Y9, X9);   \
	BROADCAST(0x00010001, Y8, X8)

// AMAX4 sets Y4 to the largest magnitude's bits of the 32 numbers in
// Y0–Y3, or keeps Y4 if it is larger.
#define AMAX4 \
	VPAND   Y15, Y0, Y5; \
	VPMAXSD Y5, Y4, Y4;  \
	VPAND   Y15, Y1, Y5; \
	VPMAXSD Y5, Y4, Y4;  \
	VPAND   Y15, Y2, Y5; \
	VPMAXSD Y5, Y4, Y4;  \
	VPAND   Y15, Y3, Y5; \
	VPMAXSD Y5, Y4, Y4

// SCALES spreads Y4's largest lane over all lanes, and sets Y6 to d, Y5
// to all ones where the quants are kept, and Y4 to id.
#define SCALES \
	VPERMQ   $0x4e, Y4, Y5; \
	VPMAXSD  Y5, Y4, Y4;    \
	VPSHUFD  $0x4e, Y4, Y5; \
	VPMAXSD  Y5, Y4, Y4;    \
	VPSHUFD  $0xb1, Y4, Y5; \
	VPMAXSD  Y5, Y4, Y4;    \
	VPCMPGTD Y11, Y4, Y5;   \
	VDIVPS   Y12, Y4, Y6;   \
	VANDPS   Y5, Y6, Y6;    \
	VPCMPGTD Y4, Y10, Y7;   \
	VPAND    Y7, Y5, Y5;    \
	VDIVPS   Y4, Y12, Y4

// QUANT8 turns the 8 numbers in r into quants (32 bits each).
#define QUANT8(r) \
	VMULPS     Y4, r, r;  \
	VROUNDPS   $0, r, r;  \
	VCVTTPS2DQ r, r;      \
	VPAND      Y5, r, r

// QUANT32 sets Y0 to the 32 quants of Y0–Y3, as bytes in order.
#define QUANT32 \
	QUANT8(Y0);               \
	QUANT8(Y1);               \
	QUANT8(Y2);               \
	QUANT8(Y3);               \
	VPACKSSDW Y1, Y0, Y0;     \
	VPACKSSDW Y3, Y2, Y2;     \
	VPACKSSWB Y2, Y0, Y0;     \
	VMOVDQU   unpack<>(SB), Y7; \
	VPERMD    Y0, Y7, Y0

// SUMS4 sets Y1 to the sums of Y0's quants 4 by 4 (32 bits each).
#define SUMS4 \
	VPMADDUBSW Y0, Y9, Y1; \
	VPMADDWD   Y8, Y1, Y1

#define LOAD32(off) \
	VMOVUPS off(SI), Y0;    \
	VMOVUPS off+32(SI), Y1; \
	VMOVUPS off+64(SI), Y2; \
	VMOVUPS off+96(SI), Y3

// BLOCK quantizes the 32 numbers at xoff into block h of a pair (Vec's
// kindQ8x32 layout): quants at q+32h, the scale and the scale times the
// sum (both rounded to f16) at 16h bytes into d and s, the 8 sums of 4
// quants at 32h bytes into sum.
#define BLOCK(xoff, h) \
	LOAD32(xoff);                 \
	VPXOR        Y4, Y4, Y4;      \
	AMAX4;                        \
	SCALES;                       \
	VCVTPS2PH    $0, X6, X7;      \
	VCVTPH2PS    X7, X7;          \
	VMOVUPS      X7, 16*h(R8);    \
	QUANT32;                      \
	VMOVDQU      Y0, 32*h(DI);    \
	SUMS4;                        \
	VMOVDQU      Y1, 32*h(R10);   \
	VEXTRACTI128 $1, Y1, X2;      \
	VPADDD       X2, X1, X1;      \
	VPSHUFD      $0x4e, X1, X2;   \
	VPADDD       X2, X1, X1;      \
	VPSHUFD      $0xb1, X1, X2;   \
	VPADDD       X2, X1, X1;      \
	VCVTDQ2PS    X1, X1;          \
	VMULPS       X6, X1, X1;      \
	VCVTPS2PH    $0, X1, X2;      \
	VCVTPH2PS    X2, X1;          \
	VMOVUPS      X1, 16*h(R9)

// func quantPairsAVX2(pairs int, x *float32, q *int8, d, s *float32, sum *int32)
//
// Quantizes 2·pairs blocks of 32 numbers from x into the first pairs of
// a kindQ8x32 input.
TEXT ·quantPairsAVX2(SB), NOSPLIT, $0-48
	MOVQ pairs+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ q+16(FP), DI
	MOVQ d+24(FP), R8
	MOVQ s+32(FP), R9
	MOVQ sum+40(FP), R10
	CONSTANTS

pair:
	BLOCK(0, 0)
	BLOCK(128, 1)
	ADDQ $256, SI
	ADDQ $64, DI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $64, R10
	DECQ CX
	JNZ  pair
	VZEROUPPER
	RET

// func quantSupersAVX2(supers int, x *float32, q *int8, d *float32, bsum *int16)
//
// Quantizes supers blocks of 256 numbers from x into a kindQ8K input:
// quants in order, a scale each, and the sums of every 16 quants.
TEXT ·quantSupersAVX2(SB), NOSPLIT, $0-40
	MOVQ supers+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ q+16(FP), DI
	MOVQ d+24(FP), R8
	MOVQ bsum+32(FP), R10
	CONSTANTS

super:
	VPXOR Y4, Y4, Y4
	MOVQ  $8, DX
	MOVQ  SI, R11

amax:
	VMOVUPS (R11), Y0
	VMOVUPS 32(R11), Y1
	VMOVUPS 64(R11), Y2
	VMOVUPS 96(R11), Y3
	AMAX4
	ADDQ    $128, R11
	DECQ    DX
	JNZ     amax
	SCALES

	// The scale is 1/id, or 0 where amax/127 is 0 (amax below 2⁻¹⁰⁰).
	VDIVPS  Y4, Y13, Y7
	VXORPS  Y3, Y3, Y3
	VCMPPS  $4, Y3, Y6, Y3
	VANDPS  Y3, Y7, Y7
	VMOVSS  X7, (R8)
	MOVQ    $8, DX

chunk:
	LOAD32(0)
	QUANT32
	VMOVDQU      Y0, (DI)
	SUMS4
	VPHADDD      Y1, Y1, Y1
	VPHADDD      Y1, Y1, Y1
	VMOVD        X1, AX
	MOVW         AX, (R10)
	VEXTRACTI128 $1, Y1, X1
	VMOVD        X1, AX
	MOVW         AX, 2(R10)
	ADDQ         $128, SI
	ADDQ         $32, DI
	ADDQ         $4, R10
	DECQ         DX
	JNZ          chunk
	ADDQ         $4, R8
	DECQ         CX
	JNZ          super
	VZEROUPPER
	RET
