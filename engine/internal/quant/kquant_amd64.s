#include "textflag.h"

// The products of K-quant matrices (Q4_K, Q5_K, Q6_K, as GGUF stores
// them) with one input, one row at a time, with AVX2, FMA and F16C. Each
// 32 quants of a sub-block pair up with the input's with VPMADDUBSW
// (unsigned weights, signed input) into 16-bit sums, which VPMADDWD
// multiplies by the sub-block's scale into 8 32-bit sums; these add up
// over the super-block in integers, and become float once per super-block
// (times d and the input's scale). The 16-bit sums cannot overflow: the
// weights are below 64 and the input's quants at most 127 in size. The
// VNNI kernels do VPMADDWD and the addition in one VPDPWSSD (AVX-512
// VNNI and VL) and give the same bits.
//
//	func(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32)
//
// w is the first row (rows follow each other), x, d the input's quants
// and scales, sums its sums of 32 quants (Q4_K, Q5_K: 8 a super-block)
// or of 16 (Q6_K: 16 a super-block), out the rows' results. A row's sum
// is acc (8 lanes) + mins (4 lanes), added up as
// (((a0+a4)+m0) + ((a1+a5)+m1)) + (((a2+a6)+m2) + ((a3+a7)+m3)).
//
// Registers: CX rows left, DX super-blocks left, SI the weights, DI out,
// R8 the input's quants, R9 its scales, R10 its sums; Y0 acc, X1 mins,
// Y6 the super-block's integer sums.

// k4shuf holds 8 VPSHUFB masks of 32 bytes: mask j copies 16-bit word j of
// each 128-bit lane to all its words.
DATA k4shuf<>+0(SB)/8, $0x0100010001000100
DATA k4shuf<>+8(SB)/8, $0x0100010001000100
DATA k4shuf<>+16(SB)/8, $0x0100010001000100
DATA k4shuf<>+24(SB)/8, $0x0100010001000100
DATA k4shuf<>+32(SB)/8, $0x0302030203020302
DATA k4shuf<>+40(SB)/8, $0x0302030203020302
DATA k4shuf<>+48(SB)/8, $0x0302030203020302
DATA k4shuf<>+56(SB)/8, $0x0302030203020302
DATA k4shuf<>+64(SB)/8, $0x0504050405040504
DATA k4shuf<>+72(SB)/8, $0x0504050405040504
DATA k4shuf<>+80(SB)/8, $0x0504050405040504
DATA k4shuf<>+88(SB)/8, $0x0504050405040504
DATA k4shuf<>+96(SB)/8, $0x0706070607060706
DATA k4shuf<>+104(SB)/8, $0x0706070607060706
DATA k4shuf<>+112(SB)/8, $0x0706070607060706
DATA k4shuf<>+120(SB)/8, $0x0706070607060706
DATA k4shuf<>+128(SB)/8, $0x0908090809080908
DATA k4shuf<>+136(SB)/8, $0x0908090809080908
DATA k4shuf<>+144(SB)/8, $0x0908090809080908
DATA k4shuf<>+152(SB)/8, $0x0908090809080908
DATA k4shuf<>+160(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA k4shuf<>+168(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA k4shuf<>+176(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA k4shuf<>+184(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA k4shuf<>+192(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA k4shuf<>+200(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA k4shuf<>+208(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA k4shuf<>+216(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA k4shuf<>+224(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA k4shuf<>+232(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA k4shuf<>+240(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA k4shuf<>+248(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL k4shuf<>(SB), RODATA|NOPTR, $256

// k6shuf holds 4 VPSHUFB masks of 32 bytes: mask c copies word 2c of the
// low 128-bit lane, and word 2c+1 of the high one, to all the lane's words.
DATA k6shuf<>+0(SB)/8, $0x0100010001000100
DATA k6shuf<>+8(SB)/8, $0x0100010001000100
DATA k6shuf<>+16(SB)/8, $0x0302030203020302
DATA k6shuf<>+24(SB)/8, $0x0302030203020302
DATA k6shuf<>+32(SB)/8, $0x0504050405040504
DATA k6shuf<>+40(SB)/8, $0x0504050405040504
DATA k6shuf<>+48(SB)/8, $0x0706070607060706
DATA k6shuf<>+56(SB)/8, $0x0706070607060706
DATA k6shuf<>+64(SB)/8, $0x0908090809080908
DATA k6shuf<>+72(SB)/8, $0x0908090809080908
DATA k6shuf<>+80(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA k6shuf<>+88(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA k6shuf<>+96(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA k6shuf<>+104(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA k6shuf<>+112(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA k6shuf<>+120(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL k6shuf<>(SB), RODATA|NOPTR, $128

// AHEAD is how far ahead the kernels ask for the weights (see
// q32_amd64.s).
#define AHEAD 5120

#define PREFETCH3 \
	PREFETCHT0 AHEAD(SI);     \
	PREFETCHT0 AHEAD+64(SI);  \
	PREFETCHT0 AHEAD+128(SI)

#define ARGS \
	MOVQ rows+0(FP), CX; \
	MOVQ w+16(FP), SI;   \
	MOVQ out+48(FP), DI

#define START_ROW \
	VXORPS Y0, Y0, Y0;      \
	VXORPS X1, X1, X1;      \
	MOVQ   x+24(FP), R8;    \
	MOVQ   d+32(FP), R9;    \
	MOVQ   sums+40(FP), R10; \
	MOVQ   supers+8(FP), DX

#define END_SUPER(bytes, sumBytes) \
	VCVTDQ2PS   Y6, Y6;       \
	VFMADD231PS Y4, Y6, Y0;   \
	ADDQ        $bytes, SI;   \
	ADDQ        $256, R8;     \
	ADDQ        $4, R9;       \
	ADDQ        $sumBytes, R10; \
	DECQ        DX

#define END_ROW \
	VEXTRACTF128 $1, Y0, X2; \
	VADDPS       X2, X0, X0; \
	VADDPS       X1, X0, X0; \
	VHADDPS      X0, X0, X0; \
	VHADDPS      X0, X0, X0; \
	VMOVSS       X0, (DI);   \
	ADDQ         $4, DI

#define BYTE_MASK(v, reg, xreg) \
	MOVQ         $v, AX;  \
	MOVQ         AX, xreg; \
	VPBROADCASTQ xreg, reg

// K4_SCALES unpacks a Q4_K or Q5_K super-block's 6-bit scales and mins
// (scaleMinK4) into 16-bit words, Y2 = the 8 scales in both 128-bit
// lanes; subtracts dmin·dx·Σ min_j·(the input's sum of sub-block j) from
// X1; and sets Y4 to d·dx in every lane.
#define K4_SCALES \
	MOVL         4(SI), AX;            \
	MOVL         8(SI), BX;            \
	MOVL         12(SI), R11;          \
	MOVL         AX, R12;              \
	ANDL         $0x3f3f3f3f, R12;     \
	MOVL         BX, R13;              \
	ANDL         $0x3f3f3f3f, R13;     \
	MOVL         R11, R14;             \
	ANDL         $0x0f0f0f0f, R14;     \
	SHRL         $6, AX;               \
	ANDL         $0x03030303, AX;      \
	SHLL         $4, AX;               \
	ORL          AX, R14;              \
	SHRL         $4, R11;              \
	ANDL         $0x0f0f0f0f, R11;     \
	SHRL         $6, BX;               \
	ANDL         $0x03030303, BX;      \
	SHLL         $4, BX;               \
	ORL          BX, R11;              \
	VMOVD        R12, X2;              \
	VPINSRD      $1, R14, X2, X2;      \
	VPINSRD      $2, R13, X2, X2;      \
	VPINSRD      $3, R11, X2, X2;      \
	VPMOVZXBW    X2, Y2;               \
	VEXTRACTI128 $1, Y2, X3;           \
	VPMADDWD     (R10), X3, X3;        \
	VINSERTI128  $1, X2, Y2, Y2;       \
	VPBROADCASTD (SI), X4;             \
	VCVTPH2PS    X4, X4;               \
	VBROADCASTSS (R9), X5;             \
	VMULPS       X5, X4, X4;           \
	VCVTDQ2PS    X3, X3;               \
	VMOVSHDUP    X4, X5;               \
	VFNMADD231PS X5, X3, X1;           \
	VBROADCASTSS X4, Y4

// K_DOTS adds the products of sub-blocks 2c and 2c+1 (unsigned quants in
// Y7 and Y8) with the input to Y6, scaled by SCALED.
#define K_DOTS(c, SCALED) \
	VPMADDUBSW 64*c(R8), Y7, Y7;         \
	VPMADDUBSW 64*c+32(R8), Y8, Y8;      \
	VPSHUFB    k4shuf<>+64*c(SB), Y2, Y9;  \
	VPSHUFB    k4shuf<>+64*c+32(SB), Y2, Y10; \
	SCALED(Y9, Y7);                      \
	SCALED(Y10, Y8)

// SCALED adds the 16-bit sums in p times the 16-bit scales in sc to Y6,
// in 32 bits: with AVX2, or in one instruction with AVX-512 VNNI.
#define SCALED_AVX2(sc, p) \
	VPMADDWD sc, p, p;  \
	VPADDD   p, Y6, Y6

#define SCALED_VNNI(sc, p) \
	VPDPWSSD sc, p, Y6

// K4_CHUNK sets Y7 and Y8 to the quants of sub-blocks 2c and 2c+1, the
// low and high nibbles of the 32 bytes at off.
#define K4_CHUNK(off) \
	VMOVDQU off(SI), Y7;  \
	VPSRLW  $4, Y7, Y8;   \
	VPAND   Y15, Y7, Y7;  \
	VPAND   Y15, Y8, Y8

#define Q4K_KERNEL(name, SCALED) \
TEXT name(SB), NOSPLIT, $0-56;                 \
	ARGS;                                      \
	BYTE_MASK(0x0f0f0f0f0f0f0f0f, Y15, X15);   \
row:                                           \
	START_ROW;                                 \
super:                                         \
	PREFETCH3;                                 \
	K4_SCALES;                                 \
	VPXOR Y6, Y6, Y6;                          \
	K4_CHUNK(16);                              \
	K_DOTS(0, SCALED);                         \
	K4_CHUNK(48);                              \
	K_DOTS(1, SCALED);                         \
	K4_CHUNK(80);                              \
	K_DOTS(2, SCALED);                         \
	K4_CHUNK(112);                             \
	K_DOTS(3, SCALED);                         \
	END_SUPER(144, 16);                        \
	JNZ super;                                 \
	END_ROW;                                   \
	DECQ CX;                                   \
	JNZ  row;                                  \
	VZEROUPPER;                                \
	RET

// func q4kVecAVX2(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32)
Q4K_KERNEL(·q4kVecAVX2, SCALED_AVX2)

// func q4kVecVNNI(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32)
Q4K_KERNEL(·q4kVecVNNI, SCALED_VNNI)

// K5_CHUNK is K4_CHUNK with the fifth bits: bit k of each of the 32 qh
// bytes (Y11) is the top bit of sub-block k's quants, moved to bit 4 by
// shifting the 16-bit words (oplo by nlo for 2c, ophi by nhi for 2c+1),
// then masked with Y14.
#define K5_CHUNK(off, oplo, nlo, ophi, nhi) \
	K4_CHUNK(off);          \
	oplo    $nlo, Y11, Y9;  \
	VPAND   Y14, Y9, Y9;    \
	VPOR    Y9, Y7, Y7;     \
	ophi    $nhi, Y11, Y10; \
	VPAND   Y14, Y10, Y10;  \
	VPOR    Y10, Y8, Y8

#define Q5K_KERNEL(name, SCALED) \
TEXT name(SB), NOSPLIT, $0-56;                 \
	ARGS;                                      \
	BYTE_MASK(0x0f0f0f0f0f0f0f0f, Y15, X15);   \
	BYTE_MASK(0x1010101010101010, Y14, X14);   \
row:                                           \
	START_ROW;                                 \
super:                                         \
	PREFETCH3;                                 \
	K4_SCALES;                                 \
	VMOVDQU 16(SI), Y11;                       \
	VPXOR   Y6, Y6, Y6;                        \
	K5_CHUNK(48, VPSLLW, 4, VPSLLW, 3);        \
	K_DOTS(0, SCALED);                         \
	K5_CHUNK(80, VPSLLW, 2, VPSLLW, 1);        \
	K_DOTS(1, SCALED);                         \
	K5_CHUNK(112, VPSLLW, 0, VPSRLW, 1);       \
	K_DOTS(2, SCALED);                         \
	K5_CHUNK(144, VPSRLW, 2, VPSRLW, 3);       \
	K_DOTS(3, SCALED);                         \
	END_SUPER(176, 16);                        \
	JNZ super;                                 \
	END_ROW;                                   \
	DECQ CX;                                   \
	JNZ  row;                                  \
	VZEROUPPER;                                \
	RET

// func q5kVecAVX2(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32)
Q5K_KERNEL(·q5kVecAVX2, SCALED_AVX2)

// func q5kVecVNNI(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32)
Q5K_KERNEL(·q5kVecVNNI, SCALED_VNNI)

// K6_DOT adds the products of 32 quants (Y10, unsigned: q + 32) with the
// input's at xoff, times the scales of their two sub-blocks of 16, to Y6.
#define K6_DOT(xoff, c, SCALED) \
	VPMADDUBSW xoff(R8), Y10, Y10;        \
	VPSHUFB    k6shuf<>+32*c(SB), Y3, Y12; \
	SCALED(Y12, Y10)

// K6_HALF does half h of a Q6_K super-block (see dequantizeQ6_K): perm
// puts its 8 scales in both lanes of Y3; Y7, Y8 hold the low 4 bits of
// its quants, Y9 the top 2 (Y15: 0x0f bytes, Y14: 0x30).
#define K6_HALF(h, perm, SCALED) \
	VPERMQ  $perm, Y2, Y3;          \
	VMOVDQU 64*h(SI), Y7;           \
	VMOVDQU 64*h+32(SI), Y8;        \
	VMOVDQU 128+32*h(SI), Y9;       \
	VPAND   Y15, Y7, Y10;           \
	VPSLLW  $4, Y9, Y11;            \
	VPAND   Y14, Y11, Y11;          \
	VPOR    Y11, Y10, Y10;          \
	K6_DOT(128*h, 0, SCALED);               \
	VPAND   Y15, Y8, Y10;           \
	VPSLLW  $2, Y9, Y11;            \
	VPAND   Y14, Y11, Y11;          \
	VPOR    Y11, Y10, Y10;          \
	K6_DOT(128*h+32, 1, SCALED);            \
	VPSRLW  $4, Y7, Y10;            \
	VPAND   Y15, Y10, Y10;          \
	VPAND   Y14, Y9, Y11;           \
	VPOR    Y11, Y10, Y10;          \
	K6_DOT(128*h+64, 2, SCALED);            \
	VPSRLW  $4, Y8, Y10;            \
	VPAND   Y15, Y10, Y10;          \
	VPSRLW  $2, Y9, Y11;            \
	VPAND   Y14, Y11, Y11;          \
	VPOR    Y11, Y10, Y10;          \
	K6_DOT(128*h+96, 3, SCALED)

// Q6_K's quants are stored as q + 32: each super-block's sums start at
// −32·Σ_k scale_k·(the input's sum of sub-block k).
#define Q6K_KERNEL(name, SCALED) \
TEXT name(SB), NOSPLIT, $0-56;                 \
	ARGS;                                      \
	BYTE_MASK(0x0f0f0f0f0f0f0f0f, Y15, X15);   \
	BYTE_MASK(0x3030303030303030, Y14, X14);   \
row:                                           \
	START_ROW;                                 \
super:                                         \
	PREFETCH3;                                 \
	PREFETCHT0   AHEAD+192(SI);                \
	VPMOVSXBW    192(SI), Y2;                  \
	VPMADDWD     (R10), Y2, Y6;                \
	VPSLLD       $5, Y6, Y6;                   \
	VPXOR        Y3, Y3, Y3;                   \
	VPSUBD       Y6, Y3, Y6;                   \
	MOVWLZX      208(SI), AX;                  \
	VMOVD        AX, X4;                       \
	VCVTPH2PS    X4, X4;                       \
	VMULSS       (R9), X4, X4;                 \
	VBROADCASTSS X4, Y4;                       \
	K6_HALF(0, 0x44, SCALED);                  \
	K6_HALF(1, 0xee, SCALED);                  \
	END_SUPER(210, 32);                        \
	JNZ super;                                 \
	END_ROW;                                   \
	DECQ CX;                                   \
	JNZ  row;                                  \
	VZEROUPPER;                                \
	RET

// func q6kVecAVX2(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32)
Q6K_KERNEL(·q6kVecAVX2, SCALED_AVX2)

// func q6kVecVNNI(rows, supers int, w *byte, x *int8, d *float32, sums *int16, out *float32)
Q6K_KERNEL(·q6kVecVNNI, SCALED_VNNI)
