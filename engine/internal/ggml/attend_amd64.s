#include "textflag.h"

// The kernels of Attend and AttendTiled, with AVX2, FMA and F16C: the
// operations of the Go loops of attend.go and exp.go, in the same order,
// so the same bits.

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
