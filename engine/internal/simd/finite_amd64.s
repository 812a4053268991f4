#include "textflag.h"

// func finite16(n int, x *float32) bool
//
// A float32 is NaN or infinite exactly when its 8 exponent bits are all
// ones. Each number is masked to those bits and compared with the mask;
// the comparisons are ORed together, 16 numbers a turn, and tested once
// at the end. n is a positive multiple of 16.
TEXT ·finite16(SB), NOSPLIT, $0-17
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVL         $0x7f800000, AX        // the exponent bits
	MOVQ         AX, X7
	VPBROADCASTD X7, Y7
	VPXOR        Y2, Y2, Y2             // lanes that met a non-finite number
	VPXOR        Y3, Y3, Y3

loop:
	VPAND   (SI), Y7, Y4
	VPAND   32(SI), Y7, Y5
	VPCMPEQD Y7, Y4, Y4
	VPCMPEQD Y7, Y5, Y5
	VPOR    Y4, Y2, Y2
	VPOR    Y5, Y3, Y3
	ADDQ    $64, SI
	SUBQ    $16, CX
	JNE     loop

	VPOR    Y3, Y2, Y2
	VPTEST  Y2, Y2
	SETEQ   ret+16(FP)
	VZEROUPPER
	RET
