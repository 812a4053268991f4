#include "textflag.h"

// func kernel4x16(k int, a *float32, aRow, aStep int, b *float32, ldb int, c *float32, ldc int, alpha float32)
//
// C[r][0:16] += alpha · Σ_p A[r·aRow + p·aStep] · B[p·ldb + 0:16] for r in 0..3.
// Strides are in elements. The 4×16 block of C stays in eight YMM
// registers for the whole sum; each step loads one row of B (two YMM)
// and broadcasts one element of A per row.
TEXT ·kernel4x16(SB), NOSPLIT, $0-68
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ aRow+16(FP), R8
	MOVQ aStep+24(FP), R9
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R10
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R11
	SHLQ $2, R8
	SHLQ $2, R9
	SHLQ $2, R10
	SHLQ $2, R11
	LEAQ (R8)(R8*2), R12

	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	TESTQ CX, CX
	JEQ   store

loop:
	VMOVUPS      (DI), Y8
	VMOVUPS      32(DI), Y9
	VBROADCASTSS (SI), Y10
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VBROADCASTSS (SI)(R8*1), Y11
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VBROADCASTSS (SI)(R8*2), Y12
	VFMADD231PS  Y8, Y12, Y4
	VFMADD231PS  Y9, Y12, Y5
	VBROADCASTSS (SI)(R12*1), Y13
	VFMADD231PS  Y8, Y13, Y6
	VFMADD231PS  Y9, Y13, Y7
	ADDQ         R9, SI
	ADDQ         R10, DI
	DECQ         CX
	JNE          loop

store:
	VBROADCASTSS alpha+64(FP), Y14
	VMOVUPS      (DX), Y8
	VMOVUPS      32(DX), Y9
	VFMADD231PS  Y0, Y14, Y8
	VFMADD231PS  Y1, Y14, Y9
	VMOVUPS      Y8, (DX)
	VMOVUPS      Y9, 32(DX)
	ADDQ         R11, DX
	VMOVUPS      (DX), Y8
	VMOVUPS      32(DX), Y9
	VFMADD231PS  Y2, Y14, Y8
	VFMADD231PS  Y3, Y14, Y9
	VMOVUPS      Y8, (DX)
	VMOVUPS      Y9, 32(DX)
	ADDQ         R11, DX
	VMOVUPS      (DX), Y8
	VMOVUPS      32(DX), Y9
	VFMADD231PS  Y4, Y14, Y8
	VFMADD231PS  Y5, Y14, Y9
	VMOVUPS      Y8, (DX)
	VMOVUPS      Y9, 32(DX)
	ADDQ         R11, DX
	VMOVUPS      (DX), Y8
	VMOVUPS      32(DX), Y9
	VFMADD231PS  Y6, Y14, Y8
	VFMADD231PS  Y7, Y14, Y9
	VMOVUPS      Y8, (DX)
	VMOVUPS      Y9, 32(DX)
	VZEROUPPER
	RET

// func kernel4x32(k int, a *float32, aRow, aStep int, b *float32, ldb int, c *float32, ldc int, alpha float32)
//
// kernel4x16 for 32 columns with AVX-512: the same steps on ZMM registers
// of 16 numbers. Every element of C goes through the same fused
// multiply-adds in the same order as in kernel4x16, so the two kernels
// give bit-identical results.
TEXT ·kernel4x32(SB), NOSPLIT, $0-68
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ aRow+16(FP), R8
	MOVQ aStep+24(FP), R9
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R10
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R11
	SHLQ $2, R8
	SHLQ $2, R9
	SHLQ $2, R10
	SHLQ $2, R11
	LEAQ (R8)(R8*2), R12

	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	TESTQ CX, CX
	JEQ   store

loop:
	VMOVUPS      (DI), Z8
	VMOVUPS      64(DI), Z9
	VBROADCASTSS (SI), Z10
	VFMADD231PS  Z8, Z10, Z0
	VFMADD231PS  Z9, Z10, Z1
	VBROADCASTSS (SI)(R8*1), Z11
	VFMADD231PS  Z8, Z11, Z2
	VFMADD231PS  Z9, Z11, Z3
	VBROADCASTSS (SI)(R8*2), Z12
	VFMADD231PS  Z8, Z12, Z4
	VFMADD231PS  Z9, Z12, Z5
	VBROADCASTSS (SI)(R12*1), Z13
	VFMADD231PS  Z8, Z13, Z6
	VFMADD231PS  Z9, Z13, Z7
	ADDQ         R9, SI
	ADDQ         R10, DI
	DECQ         CX
	JNE          loop

store:
	VBROADCASTSS alpha+64(FP), Z14
	VMOVUPS      (DX), Z8
	VMOVUPS      64(DX), Z9
	VFMADD231PS  Z0, Z14, Z8
	VFMADD231PS  Z1, Z14, Z9
	VMOVUPS      Z8, (DX)
	VMOVUPS      Z9, 64(DX)
	ADDQ         R11, DX
	VMOVUPS      (DX), Z8
	VMOVUPS      64(DX), Z9
	VFMADD231PS  Z2, Z14, Z8
	VFMADD231PS  Z3, Z14, Z9
	VMOVUPS      Z8, (DX)
	VMOVUPS      Z9, 64(DX)
	ADDQ         R11, DX
	VMOVUPS      (DX), Z8
	VMOVUPS      64(DX), Z9
	VFMADD231PS  Z4, Z14, Z8
	VFMADD231PS  Z5, Z14, Z9
	VMOVUPS      Z8, (DX)
	VMOVUPS      Z9, 64(DX)
	ADDQ         R11, DX
	VMOVUPS      (DX), Z8
	VMOVUPS      64(DX), Z9
	VFMADD231PS  Z6, Z14, Z8
	VFMADD231PS  Z7, Z14, Z9
	VMOVUPS      Z8, (DX)
	VMOVUPS      Z9, 64(DX)
	VZEROUPPER
	RET
