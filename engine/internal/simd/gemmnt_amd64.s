#include "textflag.h"

// func dot3x4(groups, n int, x *float32, ldx int, w *float32, ldw int, c *float32, ldc int, alpha float32, next *float32)
//
// Twelve dot products at a time, added into c: for each of groups groups
// of three rows of x, for t = 0..2 and r = 0..3,
// c[t·ldc + r] += alpha·Σ_{j<n} x[t·ldx + j]·w[r·ldw + j], then x and c
// move on three rows; groups ≥ 1 and n is a positive multiple of 8. Each
// step of 8 columns loads the three rows of x once and each of the four
// rows of w once, and does twelve multiply-adds into twelve accumulators
// (Y0..Y11, one per product), so a weight read from memory serves three
// tokens. The four rows of w stay the same for every group: they stay in
// the L1 cache.
//
// The first group reads the four rows of w from memory, and waits for
// them. Unless next is nil, it also asks the processor to fetch the n
// columns of the four rows from next on (rows of stride ldw, the block
// of w the caller works on after this one), so that block is in the cache
// when its first group starts.

// STEP does one step of 8 columns: AX is the offset of the columns in
// bytes.
#define STEP \
	VMOVUPS     (SI)(AX*1), Y12  \
	VMOVUPS     (R12)(AX*1), Y13 \
	VMOVUPS     (R13)(AX*1), Y14 \
	VMOVUPS     (DI)(AX*1), Y15  \
	VFMADD231PS Y15, Y12, Y0     \
	VFMADD231PS Y15, Y13, Y4     \
	VFMADD231PS Y15, Y14, Y8     \
	VMOVUPS     (R9)(AX*1), Y15  \
	VFMADD231PS Y15, Y12, Y1     \
	VFMADD231PS Y15, Y13, Y5     \
	VFMADD231PS Y15, Y14, Y9     \
	VMOVUPS     (R10)(AX*1), Y15 \
	VFMADD231PS Y15, Y12, Y2     \
	VFMADD231PS Y15, Y13, Y6     \
	VFMADD231PS Y15, Y14, Y10    \
	VMOVUPS     (R11)(AX*1), Y15 \
	VFMADD231PS Y15, Y12, Y3     \
	VFMADD231PS Y15, Y13, Y7     \
	VFMADD231PS Y15, Y14, Y11    \
	ADDQ        $32, AX

TEXT ·dot3x4(SB), NOSPLIT, $0-80
	MOVQ x+16(FP), SI
	MOVQ w+32(FP), DI
	MOVQ ldw+40(FP), R8
	MOVQ c+48(FP), DX
	SHLQ $2, R8
	LEAQ (DI)(R8*1), R9
	LEAQ (DI)(R8*2), R10
	LEAQ (R9)(R8*2), R11

group:
	MOVQ   ldx+24(FP), BX
	SHLQ   $2, BX
	LEAQ   (SI)(BX*1), R12
	LEAQ   (SI)(BX*2), R13
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	XORQ   AX, AX
	MOVQ   n+8(FP), CX
	SHRQ   $3, CX
	MOVQ   next+72(FP), BX
	TESTQ  BX, BX
	JZ     loop

	// The first group, fetching the next block as it goes: BX and R14
	// walk along its rows 0 and 2, and rows 1 and 3 are ldw further.
	LEAQ (BX)(R8*2), R14

fetching:
	PREFETCHT0 (BX)
	PREFETCHT0 (BX)(R8*1)
	PREFETCHT0 (R14)
	PREFETCHT0 (R14)(R8*1)
	ADDQ       $32, BX
	ADDQ       $32, R14
	STEP
	DECQ       CX
	JNZ        fetching
	MOVQ       $0, next+72(FP) // only the first group fetches
	JMP        sum

loop:
	STEP
	DECQ CX
	JNZ  loop

sum:
	// Each row's four accumulators sum to four numbers, scaled by alpha
	// and added to the row of c. Y15 (alpha) was overwritten in the loop.
	MOVQ         ldc+56(FP), R14
	SHLQ         $2, R14
	VBROADCASTSS alpha+64(FP), X15
	VHADDPS      Y1, Y0, Y0
	VHADDPS      Y3, Y2, Y2
	VHADDPS      Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMULPS       X15, X0, X0
	VADDPS       (DX), X0, X0
	VMOVUPS      X0, (DX)
	VHADDPS      Y5, Y4, Y4
	VHADDPS      Y7, Y6, Y6
	VHADDPS      Y6, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VADDPS       X5, X4, X4
	VMULPS       X15, X4, X4
	VADDPS       (DX)(R14*1), X4, X4
	VMOVUPS      X4, (DX)(R14*1)
	VHADDPS      Y9, Y8, Y8
	VHADDPS      Y11, Y10, Y10
	VHADDPS      Y10, Y8, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPS       X9, X8, X8
	VMULPS       X15, X8, X8
	VADDPS       (DX)(R14*2), X8, X8
	VMOVUPS      X8, (DX)(R14*2)

	// The next three rows of x (R13 is two rows on) and of c.
	MOVQ ldx+24(FP), BX
	SHLQ $2, BX
	LEAQ (R13)(BX*1), SI
	LEAQ (DX)(R14*2), DX
	ADDQ R14, DX
	DECQ groups+0(FP)
	JNZ  group
	VZEROUPPER
	RET

// func dot1x4(n int, x *float32, w *float32, ldw int, c *float32, alpha float32)
//
// dot3x4 for one row of x: c[r] += alpha·Σ_{j<n} x[j]·w[r·ldw + j] for
// r = 0..3; n is a positive multiple of 8.
TEXT ·dot1x4(SB), NOSPLIT, $0-44
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ w+16(FP), DI
	MOVQ ldw+24(FP), R8
	MOVQ c+32(FP), DX
	SHLQ $2, R8
	LEAQ (DI)(R8*1), R9
	LEAQ (DI)(R8*2), R10
	LEAQ (R9)(R8*2), R11
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   AX, AX
	SHRQ   $3, CX

loop1:
	VMOVUPS     (SI)(AX*1), Y8
	VFMADD231PS (DI)(AX*1), Y8, Y0
	VFMADD231PS (R9)(AX*1), Y8, Y1
	VFMADD231PS (R10)(AX*1), Y8, Y2
	VFMADD231PS (R11)(AX*1), Y8, Y3
	ADDQ        $32, AX
	DECQ        CX
	JNZ         loop1

	VBROADCASTSS alpha+40(FP), X15
	VHADDPS      Y1, Y0, Y0
	VHADDPS      Y3, Y2, Y2
	VHADDPS      Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMULPS       X15, X0, X0
	VADDPS       (DX), X0, X0
	VMOVUPS      X0, (DX)
	VZEROUPPER
	RET
