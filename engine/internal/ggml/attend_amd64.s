#include "textflag.h"

// The kernels of Attend and AttendTiled, with AVX2, FMA and F16C: the
// operations of the Go loops of attend.go and exp.go, in the same order,
// so the same bits.

// The sums of Attend for 2 or 3 query heads that share a key/value head
// (grouped-query attention), with AVX-512: accumF16's operations, lane
// for lane, on 512-bit registers, each value converted once for all the
// heads. One head's sums are a chain (each position's rounding to f16
// waits for the last), so a head alone leaves the cores waiting; the
// heads' chains run side by side. (The macros here; accum2F16 and
// accum3F16 at the end.)
//
//	func(n, hs int, values *uint16, stride int, e *float32, steps *uint8, acc *float32, sums *float32)
//
// with e and steps of head h for position t at t·heads + h, acc head h's
// hs numbers at h·hs, and sums the heads' sums of weights, read and
// written. Registers: Z0–Z3, Z4–Z7 and Z8–Z11 a block of 64 of heads 0,
// 1 and 2's sums; Z12–Z15 the position's 64 values; Z16 the weight (or
// e[t]), X17 the scaling of S; Y18 scratch; X19 1.0 and Z23 1.0 in every
// lane; X20–X22 the heads' S.

#define ROUND16Z(r) \
	VCVTPS2PH $0, r, Y18; \
	VCVTPH2PS Y18, r

// HEAD is accumF16's position for head h (sums a0–a3, S in s); scaled
// and sums are labels of its own.
#define HEAD(h, a0, a1, a2, a3, s, scaled, sums) \
	VBROADCASTSS 4*h(R10), Z16; \
	VMOVAPS      X19, X17;      \
	CMPB         h(R11), $0;    \
	JEQ          scaled;        \
	VMULPS       Z16, a0, a0;   \
	ROUND16Z(a0);               \
	VMULPS       Z16, a1, a1;   \
	ROUND16Z(a1);               \
	VMULPS       Z16, a2, a2;   \
	ROUND16Z(a2);               \
	VMULPS       Z16, a3, a3;   \
	ROUND16Z(a3);               \
	VMOVAPS      X16, X17;      \
	VMOVAPS      Z23, Z16;      \
scaled:                             \
	TESTQ        R13, R13;      \
	JNE          sums;          \
	VFMADD213SS  X16, X17, s;   \
sums:                               \
	VFMADD231PS  Z16, Z12, a0;  \
	ROUND16Z(a0);               \
	VFMADD231PS  Z16, Z13, a1;  \
	ROUND16Z(a1);               \
	VFMADD231PS  Z16, Z14, a2;  \
	ROUND16Z(a2);               \
	VFMADD231PS  Z16, Z15, a3;  \
	ROUND16Z(a3)

#define ACCUM_START \
	MOVQ         hs+8(FP), BX;      \
	MOVQ         BX, R14;           \
	SHLQ         $2, R14;           \
	MOVQ         stride+24(FP), R9; \
	SHLQ         $1, R9;            \
	MOVQ         acc+48(FP), DI;    \
	MOVQ         values+16(FP), R12; \
	MOVQ         sums+56(FP), R8;   \
	MOVL         $0x3f800000, AX;   \
	VMOVD        AX, X19;           \
	VBROADCASTSS X19, Z23;          \
	XORQ         R13, R13

#define LOAD4(off, a0, a1, a2, a3) \
	VMOVUPS off(DI), a0;    \
	VMOVUPS off+64(DI), a1; \
	VMOVUPS off+128(DI), a2; \
	VMOVUPS off+192(DI), a3

#define STORE4(a0, a1, a2, a3, off) \
	VMOVUPS a0, off(DI);    \
	VMOVUPS a1, off+64(DI); \
	VMOVUPS a2, off+128(DI); \
	VMOVUPS a3, off+192(DI)

#define VALUES \
	VCVTPH2PS (SI), Z12;   \
	VCVTPH2PS 32(SI), Z13; \
	VCVTPH2PS 64(SI), Z14; \
	VCVTPH2PS 96(SI), Z15

#define POSITIONS_START \
	MOVQ n+0(FP), CX;      \
	MOVQ e+32(FP), R10;    \
	MOVQ steps+40(FP), R11; \
	MOVQ R12, SI

#define NEXT_BLOCK \
	ADDQ $256, DI;  \
	ADDQ $128, R12; \
	ADDQ $64, R13;  \
	CMPQ R13, BX


// The scores of Attend for 2 or 3 query heads that share a key/value
// head, with AVX-512: scoresF16's operations, lane for lane, each key
// converted once for all the heads, DotF16's four accumulators of 16
// lanes one register each.
//
//	func(n, hs int, keys *uint16, stride int, q *float32, scale float32, out *float32, ldo int)
//
// with q head h's hs numbers at h·hs and out[h·ldo + t] its score for
// position t. Registers: Z0–Z3, Z4–Z7 and Z8–Z11 heads 0, 1 and 2's
// accumulators; Z12–Z15 a position's 64 keys; Y16, X17 scratch.

#define KEYS64(off) \
	VCVTPH2PS off(SI), Z12;    \
	VCVTPH2PS off+32(SI), Z13; \
	VCVTPH2PS off+64(SI), Z14; \
	VCVTPH2PS off+96(SI), Z15

// FIRST64 and MORE64 are a head's products with the keys in Z12–Z15,
// exact or fused into its sums: head 0's query numbers at b, head k's at
// b + k·R14 (FIRST64_k, MORE64_k).
#define PRODUCTS(op, b, i, a0, a1, a2, a3) \
	op 0(b)(R14*i), Z12, a0;   \
	op 64(b)(R14*i), Z13, a1;  \
	op 128(b)(R14*i), Z14, a2; \
	op 192(b)(R14*i), Z15, a3

#define FIRST64(b, a0, a1, a2, a3) \
	VMULPS (b), Z12, a0;    \
	VMULPS 64(b), Z13, a1;  \
	VMULPS 128(b), Z14, a2; \
	VMULPS 192(b), Z15, a3
#define FIRST64_1(b, a0, a1, a2, a3) PRODUCTS(VMULPS, b, 1, a0, a1, a2, a3)
#define FIRST64_2(b, a0, a1, a2, a3) PRODUCTS(VMULPS, b, 2, a0, a1, a2, a3)
#define MORE64(b, a0, a1, a2, a3) \
	VFMADD231PS (b), Z12, a0;    \
	VFMADD231PS 64(b), Z13, a1;  \
	VFMADD231PS 128(b), Z14, a2; \
	VFMADD231PS 192(b), Z15, a3
#define MORE64_1(b, a0, a1, a2, a3) PRODUCTS(VFMADD231PS, b, 1, a0, a1, a2, a3)
#define MORE64_2(b, a0, a1, a2, a3) PRODUCTS(VFMADD231PS, b, 2, a0, a1, a2, a3)

// REDUCE is scoresF16's reduce for one head: (a0 + a2) + (a1 + a3), the
// upper 8 lanes to the lower, then 4, 2, 1, times the scale, stored at
// dst.
#define REDUCE(a0, a1, a2, a3, y0, x0, dst) \
	VADDPS        a2, a0, a0;   \
	VADDPS        a3, a1, a1;   \
	VADDPS        a1, a0, a0;   \
	VEXTRACTF32X8 $1, a0, Y16;  \
	VADDPS        y0, Y16, y0;  \
	VEXTRACTF32X4 $1, y0, X17;  \
	VADDPS        X17, x0, x0;  \
	VMOVHLPS      x0, x0, X17;  \
	VADDPS        X17, x0, x0;  \
	VMOVSHDUP     x0, X17;      \
	VADDSS        X17, x0, x0;  \
	VMULSS        scale+40(FP), x0, x0; \
	VMOVSS        x0, dst

#define SCORES_START \
	MOVQ n+0(FP), CX;       \
	MOVQ hs+8(FP), BX;      \
	MOVQ keys+16(FP), SI;   \
	MOVQ stride+24(FP), R9; \
	SHLQ $1, R9;            \
	MOVQ q+32(FP), DX;      \
	MOVQ BX, R14;           \
	SHLQ $2, R14;           \
	MOVQ out+48(FP), DI;    \
	MOVQ ldo+56(FP), R8;    \
	SHLQ $2, R8

// func scoresF16(n, hs int, keys *uint16, stride int, q *float32, scale float32, out *float32)
//
// out[t] = DotF16(k_t, q)·scale for t < n, k_t the hs f16 numbers at
// keys + t·stride (in numbers), q the query's f16 numbers as float32, hs
// a multiple of 64. Y0–Y7 are DotF16's four accumulators of 16 lanes, two
// registers each (accumulator j's lanes 0–7 in Y2j, 8–15 in Y2j+1).
TEXT ·scoresF16(SB), NOSPLIT, $0-56
	MOVQ n+0(FP), CX
	MOVQ hs+8(FP), BX
	MOVQ keys+16(FP), SI
	MOVQ stride+24(FP), R9
	SHLQ $1, R9 // in bytes
	MOVQ q+32(FP), DX
	MOVQ out+48(FP), DI

position:
	// The first 64 numbers: the products, exact.
	VCVTPH2PS (SI), Y0
	VMULPS    (DX), Y0, Y0
	VCVTPH2PS 16(SI), Y1
	VMULPS    32(DX), Y1, Y1
	VCVTPH2PS 32(SI), Y2
	VMULPS    64(DX), Y2, Y2
	VCVTPH2PS 48(SI), Y3
	VMULPS    96(DX), Y3, Y3
	VCVTPH2PS 64(SI), Y4
	VMULPS    128(DX), Y4, Y4
	VCVTPH2PS 80(SI), Y5
	VMULPS    160(DX), Y5, Y5
	VCVTPH2PS 96(SI), Y6
	VMULPS    192(DX), Y6, Y6
	VCVTPH2PS 112(SI), Y7
	VMULPS    224(DX), Y7, Y7

	// Each further 64, fused into the accumulators.
	MOVQ $64, AX
	MOVQ SI, R10
	MOVQ DX, R11

more:
	CMPQ        AX, BX
	JGE         reduce
	ADDQ        $128, R10
	ADDQ        $256, R11
	VCVTPH2PS   (R10), Y8
	VFMADD231PS (R11), Y8, Y0
	VCVTPH2PS   16(R10), Y8
	VFMADD231PS 32(R11), Y8, Y1
	VCVTPH2PS   32(R10), Y8
	VFMADD231PS 64(R11), Y8, Y2
	VCVTPH2PS   48(R10), Y8
	VFMADD231PS 96(R11), Y8, Y3
	VCVTPH2PS   64(R10), Y8
	VFMADD231PS 128(R11), Y8, Y4
	VCVTPH2PS   80(R10), Y8
	VFMADD231PS 160(R11), Y8, Y5
	VCVTPH2PS   96(R10), Y8
	VFMADD231PS 192(R11), Y8, Y6
	VCVTPH2PS   112(R10), Y8
	VFMADD231PS 224(R11), Y8, Y7
	ADDQ        $64, AX
	JMP         more

reduce:
	// (a0 + a2) + (a1 + a3), lanes 0–7 and 8–15.
	VADDPS Y4, Y0, Y0
	VADDPS Y6, Y2, Y2
	VADDPS Y2, Y0, Y0
	VADDPS Y5, Y1, Y1
	VADDPS Y7, Y3, Y3
	VADDPS Y3, Y1, Y1

	// reduce16: the upper 8 lanes to the lower, then 4, 2, 1.
	VADDPS       Y0, Y1, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMULSS       scale+40(FP), X0, X0
	VMOVSS       X0, (DI)

	ADDQ $4, DI
	ADDQ R9, SI
	DECQ CX
	JNZ  position
	VZEROUPPER
	RET

// ROUND16(r) rounds the 8 float32 of r to f16 and back, in place.
#define ROUND16(r, x) \
	VCVTPS2PH $0, r, x; \
	VCVTPH2PS x, r

// func accumF16(n, hs int, values *uint16, stride int, e *float32, steps *uint8, acc *float32, sum float32) float32
//
// The sums of Attend over n positions: for each block of 64 numbers of
// acc (float32 holding f16 numbers), for t < n: if steps[t] is not 0,
// acc = f16(acc·e[t]) and the weight is 1, else the weight is e[t]; then
// acc = f16(v_t·weight + acc), fused, v_t the hs f16 numbers at values +
// t·stride. With the first block it returns the sum of the weights S,
// from sum, S = S·(e[t] or 1) + weight, fused.
TEXT ·accumF16(SB), NOSPLIT, $0-68
	MOVQ   hs+8(FP), BX
	MOVQ   stride+24(FP), R9
	SHLQ   $1, R9
	MOVQ   acc+48(FP), DI
	MOVQ   values+16(FP), R12
	VMOVSS sum+56(FP), X10 // S
	MOVL   $0x3f800000, AX
	MOVL   AX, X11 // 1.0
	XORQ   R13, R13 // the block of 64 at hand

block:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS 128(DI), Y4
	VMOVUPS 160(DI), Y5
	VMOVUPS 192(DI), Y6
	VMOVUPS 224(DI), Y7
	MOVQ    n+0(FP), CX
	MOVQ    e+32(FP), R10
	MOVQ    steps+40(FP), R11
	MOVQ    R12, SI

position:
	VBROADCASTSS (R10), Y8 // e[t]
	VMOVAPS      X11, X12  // the scaling of S: 1 unless steps[t]
	CMPB         (R11), $0
	JEQ          weighted

	// A new maximum: scale the sums, weight 1.
	VMULPS Y8, Y0, Y0
	ROUND16(Y0, X9)
	VMULPS Y8, Y1, Y1
	ROUND16(Y1, X9)
	VMULPS Y8, Y2, Y2
	ROUND16(Y2, X9)
	VMULPS Y8, Y3, Y3
	ROUND16(Y3, X9)
	VMULPS Y8, Y4, Y4
	ROUND16(Y4, X9)
	VMULPS Y8, Y5, Y5
	ROUND16(Y5, X9)
	VMULPS Y8, Y6, Y6
	ROUND16(Y6, X9)
	VMULPS Y8, Y7, Y7
	ROUND16(Y7, X9)
	VMOVAPS      X8, X12
	VBROADCASTSS X11, Y8

weighted:
	// Only the first block keeps S.
	TESTQ       R13, R13
	JNE         sums
	VFMADD213SS X8, X12, X10 // S·scaling + weight

sums:
	VCVTPH2PS   (SI), Y9
	VFMADD231PS Y8, Y9, Y0
	ROUND16(Y0, X9)
	VCVTPH2PS   16(SI), Y9
	VFMADD231PS Y8, Y9, Y1
	ROUND16(Y1, X9)
	VCVTPH2PS   32(SI), Y9
	VFMADD231PS Y8, Y9, Y2
	ROUND16(Y2, X9)
	VCVTPH2PS   48(SI), Y9
	VFMADD231PS Y8, Y9, Y3
	ROUND16(Y3, X9)
	VCVTPH2PS   64(SI), Y9
	VFMADD231PS Y8, Y9, Y4
	ROUND16(Y4, X9)
	VCVTPH2PS   80(SI), Y9
	VFMADD231PS Y8, Y9, Y5
	ROUND16(Y5, X9)
	VCVTPH2PS   96(SI), Y9
	VFMADD231PS Y8, Y9, Y6
	ROUND16(Y6, X9)
	VCVTPH2PS   112(SI), Y9
	VFMADD231PS Y8, Y9, Y7
	ROUND16(Y7, X9)

	ADDQ $4, R10
	INCQ R11
	ADDQ R9, SI
	DECQ CX
	JNZ  position

	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	ADDQ    $256, DI
	ADDQ    $128, R12
	ADDQ    $64, R13
	CMPQ    R13, BX
	JLT     block

	VMOVSS X10, ret+64(FP)
	VZEROUPPER
	RET

// func tileKQ(hs int, q, kt *float32, scale float32, out *float32)
//
// out[j] = (Σ_d q[d]·kt[64d + j])·scale for j < 64: each sum fused in
// order of d, from 0, then multiplied.
TEXT ·tileKQ(SB), NOSPLIT, $0-40
	MOVQ   hs+0(FP), CX
	MOVQ   q+8(FP), DX
	MOVQ   kt+16(FP), SI
	MOVQ   out+32(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

dim:
	VBROADCASTSS (DX), Y8
	VFMADD231PS  (SI), Y8, Y0
	VFMADD231PS  32(SI), Y8, Y1
	VFMADD231PS  64(SI), Y8, Y2
	VFMADD231PS  96(SI), Y8, Y3
	VFMADD231PS  128(SI), Y8, Y4
	VFMADD231PS  160(SI), Y8, Y5
	VFMADD231PS  192(SI), Y8, Y6
	VFMADD231PS  224(SI), Y8, Y7
	ADDQ         $4, DX
	ADDQ         $256, SI
	DECQ         CX
	JNZ          dim

	VBROADCASTSS scale+24(FP), Y8
	VMULPS       Y8, Y0, Y0
	VMULPS       Y8, Y1, Y1
	VMULPS       Y8, Y2, Y2
	VMULPS       Y8, Y3, Y3
	VMULPS       Y8, Y4, Y4
	VMULPS       Y8, Y5, Y5
	VMULPS       Y8, Y6, Y6
	VMULPS       Y8, Y7, Y7
	VMOVUPS      Y0, (DI)
	VMOVUPS      Y1, 32(DI)
	VMOVUPS      Y2, 64(DI)
	VMOVUPS      Y3, 96(DI)
	VMOVUPS      Y4, 128(DI)
	VMOVUPS      Y5, 160(DI)
	VMOVUPS      Y6, 192(DI)
	VMOVUPS      Y7, 224(DI)
	VZEROUPPER
	RET

// func tileV(hs int, w, vt, acc *float32)
//
// acc[d] = acc[d] + Σ_j w[j]·vt[j·hs + d] for d < hs (a multiple of 64),
// each sum fused in order of j < 64.
TEXT ·tileV(SB), NOSPLIT, $0-32
	MOVQ hs+0(FP), BX
	MOVQ w+8(FP), DX
	MOVQ vt+16(FP), SI
	MOVQ acc+24(FP), DI
	MOVQ BX, R9
	SHLQ $2, R9 // a row of vt, in bytes

block:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS 128(DI), Y4
	VMOVUPS 160(DI), Y5
	VMOVUPS 192(DI), Y6
	VMOVUPS 224(DI), Y7
	MOVQ    $64, CX
	MOVQ    DX, R10
	MOVQ    SI, R11

position:
	VBROADCASTSS (R10), Y8
	VFMADD231PS  (R11), Y8, Y0
	VFMADD231PS  32(R11), Y8, Y1
	VFMADD231PS  64(R11), Y8, Y2
	VFMADD231PS  96(R11), Y8, Y3
	VFMADD231PS  128(R11), Y8, Y4
	VFMADD231PS  160(R11), Y8, Y5
	VFMADD231PS  192(R11), Y8, Y6
	VFMADD231PS  224(R11), Y8, Y7
	ADDQ         $4, R10
	ADDQ         R9, R11
	DECQ         CX
	JNZ          position

	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	ADDQ    $256, DI
	ADDQ    $256, SI
	SUBQ    $64, BX
	JNZ     block
	VZEROUPPER
	RET

// func rotate8(n int, x, cs *float32)
//
// Rotate on n groups of 8 numbers (4 pairs): with the pairs (a, b) of x
// and (cos, sin) of cs, [b·sin, b·cos] rounded, then a·[cos, sin] fused
// with it, less on the even lanes and plus on the odd (VFMADDSUB231PS).
TEXT ·rotate8(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), DI
	MOVQ cs+16(FP), SI

loop:
	VMOVUPS        (DI), Y0
	VMOVUPS        (SI), Y1
	VMOVSHDUP      Y0, Y2          // [b, b]
	VPERMILPS      $0xb1, Y1, Y3   // [sin, cos]
	VMULPS         Y3, Y2, Y2      // [b·sin, b·cos]
	VMOVSLDUP      Y0, Y0          // [a, a]
	VFMADDSUB231PS Y1, Y0, Y2      // [a·cos − b·sin, a·sin + b·cos]
	VMOVUPS        Y2, (DI)
	ADDQ           $32, DI
	ADDQ           $32, SI
	DECQ           CX
	JNZ            loop
	VZEROUPPER
	RET

// func tileMax(x *float32) float32
//
// The largest of x[0:64], by m = x[j] > m ? x[j] : m from m = −Inf in 8
// lanes, then the lanes' largest: VMAXPS with x[j] first gives the
// second operand unless x[j] is greater, so a NaN is passed over as the
// comparison in Go passes it over.
TEXT ·tileMax(SB), NOSPLIT, $0-12
	MOVQ         x+0(FP), SI
	MOVL         $0xff800000, AX
	MOVL         AX, X0
	VBROADCASTSS X0, Y0
	VMOVUPS      (SI), Y1
	VMAXPS       Y0, Y1, Y0
	VMOVUPS      32(SI), Y1
	VMAXPS       Y0, Y1, Y0
	VMOVUPS      64(SI), Y1
	VMAXPS       Y0, Y1, Y0
	VMOVUPS      96(SI), Y1
	VMAXPS       Y0, Y1, Y0
	VMOVUPS      128(SI), Y1
	VMAXPS       Y0, Y1, Y0
	VMOVUPS      160(SI), Y1
	VMAXPS       Y0, Y1, Y0
	VMOVUPS      192(SI), Y1
	VMAXPS       Y0, Y1, Y0
	VMOVUPS      224(SI), Y1
	VMAXPS       Y0, Y1, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VMAXPS       X1, X0, X0
	VPSHUFD      $1, X0, X1
	VMAXPS       X1, X0, X0
	VMOVSS       X0, ret+8(FP)
	VZEROUPPER
	RET

// func accum2F16(n, hs int, values *uint16, stride int, e *float32, steps *uint8, acc *float32, sums *float32)
TEXT ·accum2F16(SB), NOSPLIT, $0-64
	ACCUM_START
	VMOVSS (R8), X20
	VMOVSS 4(R8), X21

a2_block:
	LOAD4(0, Z0, Z1, Z2, Z3)
	LEAQ (DI)(R14*1), DX
	VMOVUPS (DX), Z4
	VMOVUPS 64(DX), Z5
	VMOVUPS 128(DX), Z6
	VMOVUPS 192(DX), Z7
	POSITIONS_START

a2_position:
	VALUES
	HEAD(0, Z0, Z1, Z2, Z3, X20, a2_scaled0, a2_sums0)
	HEAD(1, Z4, Z5, Z6, Z7, X21, a2_scaled1, a2_sums1)
	ADDQ $8, R10
	ADDQ $2, R11
	ADDQ R9, SI
	DECQ CX
	JNZ  a2_position

	STORE4(Z0, Z1, Z2, Z3, 0)
	LEAQ    (DI)(R14*1), DX
	VMOVUPS Z4, (DX)
	VMOVUPS Z5, 64(DX)
	VMOVUPS Z6, 128(DX)
	VMOVUPS Z7, 192(DX)
	NEXT_BLOCK
	JLT a2_block

	VMOVSS X20, (R8)
	VMOVSS X21, 4(R8)
	VZEROUPPER
	RET

// func accum3F16(n, hs int, values *uint16, stride int, e *float32, steps *uint8, acc *float32, sums *float32)
TEXT ·accum3F16(SB), NOSPLIT, $0-64
	ACCUM_START
	VMOVSS (R8), X20
	VMOVSS 4(R8), X21
	VMOVSS 8(R8), X22

a3_block:
	LOAD4(0, Z0, Z1, Z2, Z3)
	LEAQ    (DI)(R14*1), DX
	VMOVUPS (DX), Z4
	VMOVUPS 64(DX), Z5
	VMOVUPS 128(DX), Z6
	VMOVUPS 192(DX), Z7
	LEAQ    (DI)(R14*2), DX
	VMOVUPS (DX), Z8
	VMOVUPS 64(DX), Z9
	VMOVUPS 128(DX), Z10
	VMOVUPS 192(DX), Z11
	POSITIONS_START

a3_position:
	VALUES
	HEAD(0, Z0, Z1, Z2, Z3, X20, a3_scaled0, a3_sums0)
	HEAD(1, Z4, Z5, Z6, Z7, X21, a3_scaled1, a3_sums1)
	HEAD(2, Z8, Z9, Z10, Z11, X22, a3_scaled2, a3_sums2)
	ADDQ $12, R10
	ADDQ $3, R11
	ADDQ R9, SI
	DECQ CX
	JNZ  a3_position

	STORE4(Z0, Z1, Z2, Z3, 0)
	LEAQ    (DI)(R14*1), DX
	VMOVUPS Z4, (DX)
	VMOVUPS Z5, 64(DX)
	VMOVUPS Z6, 128(DX)
	VMOVUPS Z7, 192(DX)
	LEAQ    (DI)(R14*2), DX
	VMOVUPS Z8, (DX)
	VMOVUPS Z9, 64(DX)
	VMOVUPS Z10, 128(DX)
	VMOVUPS Z11, 192(DX)
	NEXT_BLOCK
	JLT a3_block

	VMOVSS X20, (R8)
	VMOVSS X21, 4(R8)
	VMOVSS X22, 8(R8)
	VZEROUPPER
	RET

// func scores2F16(n, hs int, keys *uint16, stride int, q *float32, scale float32, out *float32, ldo int)
TEXT ·scores2F16(SB), NOSPLIT, $0-64
	SCORES_START
	LEAQ (DI)(R8*1), R15

s2_position:
	KEYS64(0)
	FIRST64(DX, Z0, Z1, Z2, Z3)
	FIRST64_1(DX, Z4, Z5, Z6, Z7)
	MOVQ $64, AX
	MOVQ SI, R10
	MOVQ DX, R11

s2_more:
	CMPQ AX, BX
	JGE  s2_reduce
	ADDQ $128, R10
	ADDQ $256, R11
	VCVTPH2PS (R10), Z12
	VCVTPH2PS 32(R10), Z13
	VCVTPH2PS 64(R10), Z14
	VCVTPH2PS 96(R10), Z15
	MORE64(R11, Z0, Z1, Z2, Z3)
	MORE64_1(R11, Z4, Z5, Z6, Z7)
	ADDQ $64, AX
	JMP  s2_more

s2_reduce:
	REDUCE(Z0, Z1, Z2, Z3, Y0, X0, (DI))
	REDUCE(Z4, Z5, Z6, Z7, Y4, X4, (R15))
	ADDQ $4, DI
	ADDQ $4, R15
	ADDQ R9, SI
	DECQ CX
	JNZ  s2_position
	VZEROUPPER
	RET

// func scores3F16(n, hs int, keys *uint16, stride int, q *float32, scale float32, out *float32, ldo int)
TEXT ·scores3F16(SB), NOSPLIT, $0-64
	SCORES_START
	LEAQ (DI)(R8*1), R15
	LEAQ (DI)(R8*2), R12

s3_position:
	KEYS64(0)
	FIRST64(DX, Z0, Z1, Z2, Z3)
	FIRST64_1(DX, Z4, Z5, Z6, Z7)
	FIRST64_2(DX, Z8, Z9, Z10, Z11)
	MOVQ $64, AX
	MOVQ SI, R10
	MOVQ DX, R11

s3_more:
	CMPQ AX, BX
	JGE  s3_reduce
	ADDQ $128, R10
	ADDQ $256, R11
	VCVTPH2PS (R10), Z12
	VCVTPH2PS 32(R10), Z13
	VCVTPH2PS 64(R10), Z14
	VCVTPH2PS 96(R10), Z15
	MORE64(R11, Z0, Z1, Z2, Z3)
	MORE64_1(R11, Z4, Z5, Z6, Z7)
	MORE64_2(R11, Z8, Z9, Z10, Z11)
	ADDQ $64, AX
	JMP  s3_more

s3_reduce:
	REDUCE(Z0, Z1, Z2, Z3, Y0, X0, (DI))
	REDUCE(Z4, Z5, Z6, Z7, Y4, X4, (R15))
	REDUCE(Z8, Z9, Z10, Z11, Y8, X8, (R12))
	ADDQ $4, DI
	ADDQ $4, R15
	ADDQ $4, R12
	ADDQ R9, SI
	DECQ CX
	JNZ  s3_position
	VZEROUPPER
	RET
