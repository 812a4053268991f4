#include "textflag.h"

// The products of F16 and BF16 matrices with one input, one row at a
// time, with AVX2, FMA and F16C: each 8 weights are converted to float32
// (VCVTPH2PS for F16; for BF16, widened to 32 bits and shifted into the
// top half) and multiplied into one of four accumulators, 32 columns a
// step, then 8 a step into the first. A row's sum is
// hsum((acc0+acc1)+(acc2+acc3)), its 8 lanes added as
// ((l0+l4)+(l1+l5)) + ((l2+l6)+(l3+l7)).
//
//	func(rows, n int, w *byte, stride int, x *float32, out *float32)
//
// sets out[r] to the sum over the first n columns (a multiple of 8, at
// least 8) of row r, which starts at w + r·stride bytes.

// AHEAD is how far ahead the kernels ask for the weights (see
// q32_amd64.s).
#define AHEAD 5120

#define F16_LOAD(off, dst) VCVTPH2PS off(SI)(AX*1), dst

#define BF16_LOAD(off, dst) \
	VPMOVZXWD off(SI)(AX*1), dst; \
	VPSLLD    $16, dst, dst

#define FLOAT_KERNEL(name, LOAD) \
TEXT name(SB), NOSPLIT, $0-48; \
	MOVQ rows+0(FP), CX;       \
	MOVQ w+16(FP), SI;         \
	MOVQ out+40(FP), DI;       \
row:                           \
	VXORPS Y0, Y0, Y0;         \
	VXORPS Y1, Y1, Y1;         \
	VXORPS Y2, Y2, Y2;         \
	VXORPS Y3, Y3, Y3;         \
	MOVQ   x+32(FP), R8;       \
	XORQ   AX, AX;             \
	MOVQ   n+8(FP), DX;        \
loop32:                        \
	CMPQ   DX, $32;            \
	JLT    loop8;              \
	PREFETCHT0 AHEAD(SI)(AX*1); \
	LOAD(0, Y4);               \
	LOAD(16, Y5);              \
	LOAD(32, Y6);              \
	LOAD(48, Y7);              \
	VFMADD231PS (R8), Y4, Y0;  \
	VFMADD231PS 32(R8), Y5, Y1; \
	VFMADD231PS 64(R8), Y6, Y2; \
	VFMADD231PS 96(R8), Y7, Y3; \
	ADDQ   $64, AX;            \
	ADDQ   $128, R8;           \
	SUBQ   $32, DX;            \
	JMP    loop32;             \
loop8:                         \
	TESTQ  DX, DX;             \
	JEQ    reduce;             \
	LOAD(0, Y4);               \
	VFMADD231PS (R8), Y4, Y0;  \
	ADDQ   $16, AX;            \
	ADDQ   $32, R8;            \
	SUBQ   $8, DX;             \
	JMP    loop8;              \
reduce:                        \
	VADDPS       Y1, Y0, Y0;   \
	VADDPS       Y3, Y2, Y2;   \
	VADDPS       Y2, Y0, Y0;   \
	VEXTRACTF128 $1, Y0, X1;   \
	VADDPS       X1, X0, X0;   \
	VHADDPS      X0, X0, X0;   \
	VHADDPS      X0, X0, X0;   \
	VMOVSS       X0, (DI);     \
	ADDQ         $4, DI;       \
	ADDQ         stride+24(FP), SI; \
	DECQ         CX;           \
	JNZ          row;          \
	VZEROUPPER;                \
	RET

// func f16VecAVX2(rows, n int, w *byte, stride int, x *float32, out *float32)
FLOAT_KERNEL(·f16VecAVX2, F16_LOAD)

// func bf16VecAVX2(rows, n int, w *byte, stride int, x *float32, out *float32)
FLOAT_KERNEL(·bf16VecAVX2, BF16_LOAD)
