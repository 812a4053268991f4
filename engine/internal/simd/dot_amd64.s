#include "textflag.h"

// dotmask holds 8 all-ones numbers, then 8 zeros: the 8 read from
// dotmask<>+4·(8−k) select the first k lanes of a vector.
DATA dotmask<>+0(SB)/4, $0xffffffff
DATA dotmask<>+4(SB)/4, $0xffffffff
DATA dotmask<>+8(SB)/4, $0xffffffff
DATA dotmask<>+12(SB)/4, $0xffffffff
DATA dotmask<>+16(SB)/4, $0xffffffff
DATA dotmask<>+20(SB)/4, $0xffffffff
DATA dotmask<>+24(SB)/4, $0xffffffff
DATA dotmask<>+28(SB)/4, $0xffffffff
DATA dotmask<>+32(SB)/4, $0x00000000
DATA dotmask<>+36(SB)/4, $0x00000000
DATA dotmask<>+40(SB)/4, $0x00000000
DATA dotmask<>+44(SB)/4, $0x00000000
DATA dotmask<>+48(SB)/4, $0x00000000
DATA dotmask<>+52(SB)/4, $0x00000000
DATA dotmask<>+56(SB)/4, $0x00000000
DATA dotmask<>+60(SB)/4, $0x00000000
GLOBL dotmask<>(SB), RODATA|NOPTR, $64

// func dot4(n int, x *float32, w *float32, ldw int, out *float32)
//
// Four dot products at once: out[r] = Σ_{j<n} w[r·ldw + j]·x[j], r = 0..3,
// n ≥ 1. Each step loads 16 numbers of x once and multiplies them into
// four rows of w with eight independent accumulators (two per row, so
// consecutive FMAs do not wait for each other); the last n mod 8 columns
// go through a mask. Each row's sum goes through the same operations
// whatever the other three rows are.
TEXT ·dot4(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ w+16(FP), DI
	MOVQ ldw+24(FP), R8
	MOVQ out+32(FP), DX
	SHLQ $2, R8
	LEAQ (DI)(R8*1), R9
	LEAQ (DI)(R8*2), R10
	LEAQ (R9)(R8*2), R11
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ   AX, AX
	SHRQ   $3, CX

loop16:
	CMPQ        CX, $2
	JLT         loop8
	VMOVUPS     (SI)(AX*1), Y8
	VMOVUPS     32(SI)(AX*1), Y9
	VFMADD231PS (DI)(AX*1), Y8, Y0
	VFMADD231PS 32(DI)(AX*1), Y9, Y4
	VFMADD231PS (R9)(AX*1), Y8, Y1
	VFMADD231PS 32(R9)(AX*1), Y9, Y5
	VFMADD231PS (R10)(AX*1), Y8, Y2
	VFMADD231PS 32(R10)(AX*1), Y9, Y6
	VFMADD231PS (R11)(AX*1), Y8, Y3
	VFMADD231PS 32(R11)(AX*1), Y9, Y7
	ADDQ        $64, AX
	SUBQ        $2, CX
	JMP         loop16

loop8:
	TESTQ       CX, CX
	JEQ         tail
	VMOVUPS     (SI)(AX*1), Y8
	VFMADD231PS (DI)(AX*1), Y8, Y0
	VFMADD231PS (R9)(AX*1), Y8, Y1
	VFMADD231PS (R10)(AX*1), Y8, Y2
	VFMADD231PS (R11)(AX*1), Y8, Y3
	ADDQ        $32, AX

tail:
	// The last n mod 8 columns, through a mask: lanes past the end of a
	// row are neither read (no fault, no number from the next row) nor
	// added.
	MOVQ        n+0(FP), BX
	ANDQ        $7, BX
	JEQ         reduce
	LEAQ        dotmask<>+32(SB), R12
	SHLQ        $2, BX
	SUBQ        BX, R12
	VMOVUPS     (R12), Y10
	VMASKMOVPS  (SI)(AX*1), Y10, Y8
	VMASKMOVPS  (DI)(AX*1), Y10, Y9
	VFMADD231PS Y9, Y8, Y4
	VMASKMOVPS  (R9)(AX*1), Y10, Y9
	VFMADD231PS Y9, Y8, Y5
	VMASKMOVPS  (R10)(AX*1), Y10, Y9
	VFMADD231PS Y9, Y8, Y6
	VMASKMOVPS  (R11)(AX*1), Y10, Y9
	VFMADD231PS Y9, Y8, Y7

reduce:
	VADDPS       Y4, Y0, Y0
	VADDPS       Y5, Y1, Y1
	VADDPS       Y6, Y2, Y2
	VADDPS       Y7, Y3, Y3
	VHADDPS      Y1, Y0, Y0
	VHADDPS      Y3, Y2, Y2
	VHADDPS      Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVUPS      X0, (DX)
	VZEROUPPER
	RET
