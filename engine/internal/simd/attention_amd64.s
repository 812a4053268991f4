#include "textflag.h"

// func scores8(blocks int, hs int, q *float32, keys *float32, stride int, scale float32, out *float32)
//
// Attention scores for 8·blocks positions: out[t] = scale · Σ_{i<hs}
// q[i]·keys[t·stride + i], hs a multiple of 8. Each block of 8 positions
// keeps one accumulator per position (Y0..Y7); every 8 numbers of q are
// loaded once and multiplied into the 8 keys. The 8 accumulators are then
// summed across their lanes together: three rounds of pairwise horizontal
// adds and a swap of 128-bit halves leave the 8 scores in one register.
TEXT ·scores8(SB), NOSPLIT, $0-56
	MOVQ         blocks+0(FP), CX
	MOVQ         hs+8(FP), BX
	MOVQ         q+16(FP), SI
	MOVQ         keys+24(FP), DI
	MOVQ         stride+32(FP), R8
	VBROADCASTSS scale+40(FP), Y15
	MOVQ         out+48(FP), DX
	SHLQ         $2, R8               // stride in bytes
	SHLQ         $2, BX               // head size in bytes
	LEAQ         (R8)(R8*2), R9       // 3 rows
	LEAQ         (R8)(R8*4), R10      // 5 rows
	LEAQ         (R9)(R8*4), R11      // 7 rows
	MOVQ         R8, R13
	SHLQ         $3, R13              // 8 rows

block:
	TESTQ  CX, CX
	JEQ    done
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   DI, R12                    // first key of the block, at column AX
	XORQ   AX, AX

columns:
	VMOVUPS     (SI)(AX*1), Y8
	VFMADD231PS (R12), Y8, Y0
	VFMADD231PS (R12)(R8*1), Y8, Y1
	VFMADD231PS (R12)(R8*2), Y8, Y2
	VFMADD231PS (R12)(R9*1), Y8, Y3
	VFMADD231PS (R12)(R8*4), Y8, Y4
	VFMADD231PS (R12)(R10*1), Y8, Y5
	VFMADD231PS (R12)(R9*2), Y8, Y6
	VFMADD231PS (R12)(R11*1), Y8, Y7
	ADDQ        $32, R12
	ADDQ        $32, AX
	CMPQ        AX, BX
	JLT         columns

	// Sum each accumulator's 8 lanes, all 8 at once.
	VHADDPS    Y1, Y0, Y0
	VHADDPS    Y3, Y2, Y2
	VHADDPS    Y5, Y4, Y4
	VHADDPS    Y7, Y6, Y6
	VHADDPS    Y2, Y0, Y0             // per half: positions 0..3
	VHADDPS    Y6, Y4, Y4             // per half: positions 4..7
	VPERM2F128 $0x20, Y4, Y0, Y1      // low halves
	VPERM2F128 $0x31, Y4, Y0, Y2      // high halves
	VADDPS     Y2, Y1, Y1
	VMULPS     Y15, Y1, Y1
	VMOVUPS    Y1, (DX)
	ADDQ       R13, DI
	ADDQ       $32, DX
	DECQ       CX
	JMP        block

done:
	VZEROUPPER
	RET

// func weightedSum8(n int, hs int, w *float32, values *float32, stride int, out *float32)
//
// out[i] = Σ_{t<n} w[t]·values[t·stride + i] for i < hs, hs a multiple of
// 8. Each run of 8 columns is summed over the positions with four
// accumulators (positions t mod 4), so consecutive multiply-adds do not
// wait for each other; they are added together at the end.
TEXT ·weightedSum8(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ hs+8(FP), BX
	MOVQ w+16(FP), SI
	MOVQ values+24(FP), DI
	MOVQ stride+32(FP), R8
	MOVQ out+40(FP), DX
	SHLQ $2, R8                       // stride in bytes
	LEAQ (R8)(R8*2), R9               // 3 rows
	MOVQ R8, R10
	SHLQ $2, R10                      // 4 rows
	SHRQ $3, BX                       // runs of 8 columns
	MOVQ CX, R13
	ANDQ $-4, R13                     // positions in groups of 4

run:
	TESTQ  BX, BX
	JEQ    sumdone
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ   DI, R11                    // row of position AX, at this run
	XORQ   AX, AX

four:
	CMPQ         AX, R13
	JGE          one
	VBROADCASTSS (SI)(AX*4), Y4
	VBROADCASTSS 4(SI)(AX*4), Y5
	VBROADCASTSS 8(SI)(AX*4), Y6
	VBROADCASTSS 12(SI)(AX*4), Y7
	VFMADD231PS  (R11), Y4, Y0
	VFMADD231PS  (R11)(R8*1), Y5, Y1
	VFMADD231PS  (R11)(R8*2), Y6, Y2
	VFMADD231PS  (R11)(R9*1), Y7, Y3
	ADDQ         R10, R11
	ADDQ         $4, AX
	JMP          four

one:
	CMPQ         AX, CX
	JGE          store
	VBROADCASTSS (SI)(AX*4), Y4
	VFMADD231PS  (R11), Y4, Y0
	ADDQ         R8, R11
	INCQ         AX
	JMP          one

store:
	VADDPS  Y1, Y0, Y0
	VADDPS  Y3, Y2, Y2
	VADDPS  Y2, Y0, Y0
	VMOVUPS Y0, (DX)
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    BX
	JMP     run

sumdone:
	VZEROUPPER
	RET
