#include "textflag.h"

// EXPBLOCK replaces the 8 numbers of Y0 by exp(min(Y0 − m, 0)), as
// expSum8 describes, with m in Y15, 0 in Y14, -87.5 in Y13 and log2 e,
// ln2hi, ln2lo in Y11..Y9; it uses Y1..Y4. Step by step: d = Y0 − m;
// d = min(d, 0) and max(d, -87.5), each written so that a NaN d is kept;
// k = round(d·log2 e); r = d − k·ln2hi − k·ln2lo; p = exp(r) by the
// polynomial in Horner's form; p·2^k by adding k to the exponent bits;
// lanes below 2^-126 (and not NaN) cleared.
#define EXPBLOCK \
	VSUBPS       Y15, Y0, Y0 \
	VMINPS       Y0, Y14, Y0 \
	VMAXPS       Y0, Y13, Y0 \
	VMULPS       Y11, Y0, Y1 \
	VROUNDPS     $0, Y1, Y1 \
	VFNMADD231PS Y10, Y1, Y0 \
	VFNMADD231PS Y9, Y1, Y0 \
	VMOVUPS      expconst<>+96(SB), Y2 \
	VFMADD213PS  expconst<>+128(SB), Y0, Y2 \
	VFMADD213PS  expconst<>+160(SB), Y0, Y2 \
	VFMADD213PS  expconst<>+192(SB), Y0, Y2 \
	VFMADD213PS  expconst<>+224(SB), Y0, Y2 \
	VFMADD213PS  expconst<>+256(SB), Y0, Y2 \
	VMULPS       Y0, Y0, Y3 \
	VFMADD213PS  Y0, Y3, Y2 \
	VADDPS       expconst<>+288(SB), Y2, Y2 \
	VCVTPS2DQ    Y1, Y1 \
	VPSLLD       $23, Y1, Y1 \
	VPADDD       Y1, Y2, Y0 \
	VCMPPS       $5, expconst<>+320(SB), Y0, Y4 \
	VANDPS       Y4, Y0, Y0

// Constants of expSum8, each repeated in the 8 lanes of a vector so that
// an instruction can take it from memory: log2(e); ln 2 split in a high
// part with few bits (k·ln2hi is exact for |k| < 2^9) and the rest; the
// coefficients p0..p5 of exp(r) ≈ 1 + r + r²·(p5 + r·(p4 + … + r·p0)) on
// |r| ≤ ln(2)/2 (Cephes' expf); 1; 2^-126, the smallest normal float32;
// and -87.5.
DATA expconst<>+0(SB)/4, $0x3fb8aa3b
DATA expconst<>+4(SB)/4, $0x3fb8aa3b
DATA expconst<>+8(SB)/4, $0x3fb8aa3b
DATA expconst<>+12(SB)/4, $0x3fb8aa3b
DATA expconst<>+16(SB)/4, $0x3fb8aa3b
DATA expconst<>+20(SB)/4, $0x3fb8aa3b
DATA expconst<>+24(SB)/4, $0x3fb8aa3b
DATA expconst<>+28(SB)/4, $0x3fb8aa3b
DATA expconst<>+32(SB)/4, $0x3f317200
DATA expconst<>+36(SB)/4, $0x3f317200
DATA expconst<>+40(SB)/4, $0x3f317200
DATA expconst<>+44(SB)/4, $0x3f317200
DATA expconst<>+48(SB)/4, $0x3f317200
DATA expconst<>+52(SB)/4, $0x3f317200
DATA expconst<>+56(SB)/4, $0x3f317200
DATA expconst<>+60(SB)/4, $0x3f317200
DATA expconst<>+64(SB)/4, $0x35bfbe8e
DATA expconst<>+68(SB)/4, $0x35bfbe8e
DATA expconst<>+72(SB)/4, $0x35bfbe8e
DATA expconst<>+76(SB)/4, $0x35bfbe8e
DATA expconst<>+80(SB)/4, $0x35bfbe8e
DATA expconst<>+84(SB)/4, $0x35bfbe8e
DATA expconst<>+88(SB)/4, $0x35bfbe8e
DATA expconst<>+92(SB)/4, $0x35bfbe8e
DATA expconst<>+96(SB)/4, $0x39506967
DATA expconst<>+100(SB)/4, $0x39506967
DATA expconst<>+104(SB)/4, $0x39506967
DATA expconst<>+108(SB)/4, $0x39506967
DATA expconst<>+112(SB)/4, $0x39506967
DATA expconst<>+116(SB)/4, $0x39506967
DATA expconst<>+120(SB)/4, $0x39506967
DATA expconst<>+124(SB)/4, $0x39506967
DATA expconst<>+128(SB)/4, $0x3ab743ce
DATA expconst<>+132(SB)/4, $0x3ab743ce
DATA expconst<>+136(SB)/4, $0x3ab743ce
DATA expconst<>+140(SB)/4, $0x3ab743ce
DATA expconst<>+144(SB)/4, $0x3ab743ce
DATA expconst<>+148(SB)/4, $0x3ab743ce
DATA expconst<>+152(SB)/4, $0x3ab743ce
DATA expconst<>+156(SB)/4, $0x3ab743ce
DATA expconst<>+160(SB)/4, $0x3c088908
DATA expconst<>+164(SB)/4, $0x3c088908
DATA expconst<>+168(SB)/4, $0x3c088908
DATA expconst<>+172(SB)/4, $0x3c088908
DATA expconst<>+176(SB)/4, $0x3c088908
DATA expconst<>+180(SB)/4, $0x3c088908
DATA expconst<>+184(SB)/4, $0x3c088908
DATA expconst<>+188(SB)/4, $0x3c088908
DATA expconst<>+192(SB)/4, $0x3d2aa9c1
DATA expconst<>+196(SB)/4, $0x3d2aa9c1
DATA expconst<>+200(SB)/4, $0x3d2aa9c1
DATA expconst<>+204(SB)/4, $0x3d2aa9c1
DATA expconst<>+208(SB)/4, $0x3d2aa9c1
DATA expconst<>+212(SB)/4, $0x3d2aa9c1
DATA expconst<>+216(SB)/4, $0x3d2aa9c1
DATA expconst<>+220(SB)/4, $0x3d2aa9c1
DATA expconst<>+224(SB)/4, $0x3e2aaaaa
DATA expconst<>+228(SB)/4, $0x3e2aaaaa
DATA expconst<>+232(SB)/4, $0x3e2aaaaa
DATA expconst<>+236(SB)/4, $0x3e2aaaaa
DATA expconst<>+240(SB)/4, $0x3e2aaaaa
DATA expconst<>+244(SB)/4, $0x3e2aaaaa
DATA expconst<>+248(SB)/4, $0x3e2aaaaa
DATA expconst<>+252(SB)/4, $0x3e2aaaaa
DATA expconst<>+256(SB)/4, $0x3f000000
DATA expconst<>+260(SB)/4, $0x3f000000
DATA expconst<>+264(SB)/4, $0x3f000000
DATA expconst<>+268(SB)/4, $0x3f000000
DATA expconst<>+272(SB)/4, $0x3f000000
DATA expconst<>+276(SB)/4, $0x3f000000
DATA expconst<>+280(SB)/4, $0x3f000000
DATA expconst<>+284(SB)/4, $0x3f000000
DATA expconst<>+288(SB)/4, $0x3f800000
DATA expconst<>+292(SB)/4, $0x3f800000
DATA expconst<>+296(SB)/4, $0x3f800000
DATA expconst<>+300(SB)/4, $0x3f800000
DATA expconst<>+304(SB)/4, $0x3f800000
DATA expconst<>+308(SB)/4, $0x3f800000
DATA expconst<>+312(SB)/4, $0x3f800000
DATA expconst<>+316(SB)/4, $0x3f800000
DATA expconst<>+320(SB)/4, $0x00800000
DATA expconst<>+324(SB)/4, $0x00800000
DATA expconst<>+328(SB)/4, $0x00800000
DATA expconst<>+332(SB)/4, $0x00800000
DATA expconst<>+336(SB)/4, $0x00800000
DATA expconst<>+340(SB)/4, $0x00800000
DATA expconst<>+344(SB)/4, $0x00800000
DATA expconst<>+348(SB)/4, $0x00800000
DATA expconst<>+352(SB)/4, $0xc2af0000
DATA expconst<>+356(SB)/4, $0xc2af0000
DATA expconst<>+360(SB)/4, $0xc2af0000
DATA expconst<>+364(SB)/4, $0xc2af0000
DATA expconst<>+368(SB)/4, $0xc2af0000
DATA expconst<>+372(SB)/4, $0xc2af0000
DATA expconst<>+376(SB)/4, $0xc2af0000
DATA expconst<>+380(SB)/4, $0xc2af0000
GLOBL expconst<>(SB), RODATA|NOPTR, $384

// tailmask holds 8 all-ones numbers, then 8 zeros: the 8 read from
// tailmask<>+4·(8−k) select the first k lanes of a vector.
DATA tailmask<>+0(SB)/4, $0xffffffff
DATA tailmask<>+4(SB)/4, $0xffffffff
DATA tailmask<>+8(SB)/4, $0xffffffff
DATA tailmask<>+12(SB)/4, $0xffffffff
DATA tailmask<>+16(SB)/4, $0xffffffff
DATA tailmask<>+20(SB)/4, $0xffffffff
DATA tailmask<>+24(SB)/4, $0xffffffff
DATA tailmask<>+28(SB)/4, $0xffffffff
DATA tailmask<>+32(SB)/4, $0x00000000
DATA tailmask<>+36(SB)/4, $0x00000000
DATA tailmask<>+40(SB)/4, $0x00000000
DATA tailmask<>+44(SB)/4, $0x00000000
DATA tailmask<>+48(SB)/4, $0x00000000
DATA tailmask<>+52(SB)/4, $0x00000000
DATA tailmask<>+56(SB)/4, $0x00000000
DATA tailmask<>+60(SB)/4, $0x00000000
GLOBL tailmask<>(SB), RODATA|NOPTR, $64

// func expSum8(n int, x *float32, m float32) float32
//
// x[i] = exp(d), d = min(x[i] − m, 0), for i < n, and the sum of the
// results. Each exponential is split as 2^k · exp(r): k = round(d·log2 e),
// r = d − k·ln 2 (two multiply-adds, so r is exact to float32), exp(r) by
// the polynomial, and 2^k added into the exponent bits. d is first raised
// to -87.5 at least, so k ≥ -126 and the exponent never wraps; results
// below 2^-126 (the arguments below about -87.34) then become 0. A NaN
// passes every step as NaN: the comparisons keep it.
TEXT ·expSum8(SB), NOSPLIT, $0-28
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	VBROADCASTSS m+16(FP), Y15
	VXORPS       Y14, Y14, Y14          // 0
	VMOVUPS      expconst<>+352(SB), Y13 // -87.5
	VXORPS       Y12, Y12, Y12          // sum
	VMOVUPS      expconst<>+0(SB), Y11
	VMOVUPS      expconst<>+32(SB), Y10
	VMOVUPS      expconst<>+64(SB), Y9

loop:
	CMPQ    CX, $8
	JLT     tail
	VMOVUPS (SI), Y0
	EXPBLOCK
	VMOVUPS Y0, (SI)
	VADDPS  Y0, Y12, Y12
	ADDQ    $32, SI
	SUBQ    $8, CX
	JMP     loop

tail:
	TESTQ      CX, CX
	JEQ        sum
	LEAQ       tailmask<>+32(SB), AX
	SHLQ       $2, CX
	SUBQ       CX, AX
	VMOVUPS    (AX), Y8
	VMASKMOVPS (SI), Y8, Y0
	EXPBLOCK
	VMASKMOVPS Y0, Y8, (SI)
	VANDPS     Y8, Y0, Y0               // lanes past the end add nothing
	VADDPS     Y0, Y12, Y12

sum:
	VEXTRACTF128 $1, Y12, X1
	VADDPS       X1, X12, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VMOVSS       X0, ret+24(FP)
	VZEROUPPER
	RET

// SILUBLOCK sets Y0 to silu(g)·u = g·σ(g)·u for the 8 numbers g of Y5
// and u of Y6, with the registers of expSum8 set for m = 0, -0.0 in every
// lane of Y8 and 1 in Y7; it uses Y1..Y4. σ(g) = 1/(1 + e^-g) is computed
// from e = exp(-|g|), which never overflows: σ(g) = 1/(1 + e) for g ≥ 0,
// e/(1 + e) below. A NaN g gives NaN.
#define SILUBLOCK \
	VORPS     Y8, Y5, Y0 \
	EXPBLOCK \
	VADDPS    Y7, Y0, Y1 \
	VCMPPS    $13, Y14, Y5, Y2 \
	VBLENDVPS Y2, Y7, Y0, Y0 \
	VDIVPS    Y1, Y0, Y0 \
	VMULPS    Y5, Y0, Y0 \
	VMULPS    Y6, Y0, Y0

// func swiglu8(n int, gate *float32, up *float32)
//
// gate[i] = silu(gate[i])·up[i] for i < n, the last n mod 8 read and
// written through a mask. n is at least 1.
TEXT ·swiglu8(SB), NOSPLIT, $0-24
	MOVQ     n+0(FP), CX
	MOVQ     gate+8(FP), SI
	MOVQ     up+16(FP), DI
	VXORPS   Y15, Y15, Y15          // m = 0
	VXORPS   Y14, Y14, Y14
	VMOVUPS  expconst<>+352(SB), Y13
	VMOVUPS  expconst<>+0(SB), Y11
	VMOVUPS  expconst<>+32(SB), Y10
	VMOVUPS  expconst<>+64(SB), Y9
	VPCMPEQD Y8, Y8, Y8
	VPSLLD   $31, Y8, Y8            // the sign bit
	VMOVUPS  expconst<>+288(SB), Y7 // 1

loop:
	CMPQ    CX, $8
	JLT     tail
	VMOVUPS (SI), Y5
	VMOVUPS (DI), Y6
	SILUBLOCK
	VMOVUPS Y0, (SI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     loop

tail:
	TESTQ      CX, CX
	JEQ        done
	LEAQ       tailmask<>+32(SB), AX
	SHLQ       $2, CX
	SUBQ       CX, AX
	VMOVUPS    (AX), Y12
	VMASKMOVPS (SI), Y12, Y5
	VMASKMOVPS (DI), Y12, Y6
	SILUBLOCK
	VMASKMOVPS Y0, Y12, (SI)

done:
	VZEROUPPER
	RET

// func max8(n int, x *float32) float32
//
// The largest of x[0..n-1], n ≥ 1, 8 lanes at a time in two accumulators,
// the last n mod 8 numbers through a mask (lanes past the end read as
// -Inf). VMAXPS does not carry NaN through (it returns its second operand
// when either is NaN), so NaNs are found apart, by comparing every number
// with itself, and then NaN is returned.
TEXT ·max8(SB), NOSPLIT, $0-20
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVL         $0xff800000, AX        // -Inf
	MOVQ         AX, X7
	VBROADCASTSS X7, Y7
	VMOVAPS      Y7, Y0                 // largest so far, two accumulators
	VMOVAPS      Y7, Y1
	VXORPS       Y2, Y2, Y2             // lanes that met a NaN
	VXORPS       Y3, Y3, Y3

loop16:
	CMPQ    CX, $16
	JLT     loop8
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMAXPS  Y4, Y0, Y0
	VMAXPS  Y5, Y1, Y1
	VCMPPS  $3, Y4, Y4, Y6              // unordered: NaN
	VORPS   Y6, Y2, Y2
	VCMPPS  $3, Y5, Y5, Y6
	VORPS   Y6, Y3, Y3
	ADDQ    $64, SI
	SUBQ    $16, CX
	JMP     loop16

loop8:
	CMPQ    CX, $8
	JLT     tail
	VMOVUPS (SI), Y4
	VMAXPS  Y4, Y0, Y0
	VCMPPS  $3, Y4, Y4, Y6
	VORPS   Y6, Y2, Y2
	ADDQ    $32, SI
	SUBQ    $8, CX

tail:
	TESTQ      CX, CX
	JEQ        reduce
	LEAQ       tailmask<>+32(SB), AX
	SHLQ       $2, CX
	SUBQ       CX, AX
	VMOVUPS    (AX), Y8
	VMASKMOVPS (SI), Y8, Y4
	VBLENDVPS  Y8, Y4, Y7, Y4           // -Inf past the end
	VMAXPS     Y4, Y1, Y1
	VCMPPS     $3, Y4, Y4, Y6
	VORPS      Y6, Y3, Y3

reduce:
	VMAXPS       Y1, Y0, Y0
	VORPS        Y3, Y2, Y2
	VEXTRACTF128 $1, Y0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0x4e, X0, X1          // swap the 64-bit halves
	VMAXPS       X1, X0, X0
	VPERMILPS    $0xb1, X0, X1          // swap neighbours
	VMAXPS       X1, X0, X0
	VPTEST       Y2, Y2
	JEQ          done
	MOVL         $0x7fc00000, AX        // NaN
	MOVQ         AX, X0

done:
	VMOVSS X0, ret+16(FP)
	VZEROUPPER
	RET

// EXPBLOCKB is EXPBLOCK on Y7 with Y8, Y9, Y10 and Y12 for Y1..Y4, and
// log2 e, ln2hi and ln2lo read from memory (Y9..Y11 hold other numbers
// here): sumExp8's second block of a pair, independent of the first, so
// that the two chains of dependent steps run side by side.
#define EXPBLOCKB \
	VSUBPS       Y15, Y7, Y7 \
	VMINPS       Y7, Y14, Y7 \
	VMAXPS       Y7, Y13, Y7 \
	VMULPS       expconst<>+0(SB), Y7, Y8 \
	VROUNDPS     $0, Y8, Y8 \
	VFNMADD231PS expconst<>+32(SB), Y8, Y7 \
	VFNMADD231PS expconst<>+64(SB), Y8, Y7 \
	VMOVUPS      expconst<>+96(SB), Y9 \
	VFMADD213PS  expconst<>+128(SB), Y7, Y9 \
	VFMADD213PS  expconst<>+160(SB), Y7, Y9 \
	VFMADD213PS  expconst<>+192(SB), Y7, Y9 \
	VFMADD213PS  expconst<>+224(SB), Y7, Y9 \
	VFMADD213PS  expconst<>+256(SB), Y7, Y9 \
	VMULPS       Y7, Y7, Y10 \
	VFMADD213PS  Y7, Y10, Y9 \
	VADDPS       expconst<>+288(SB), Y9, Y9 \
	VCVTPS2DQ    Y8, Y8 \
	VPSLLD       $23, Y8, Y8 \
	VPADDD       Y8, Y9, Y7 \
	VCMPPS       $5, expconst<>+320(SB), Y7, Y12 \
	VANDPS       Y12, Y7, Y7

// ADDWIDE adds the 8 numbers of float32 register X (as Y) to the float64
// sums Y5 (its low 4) and Y6 (its high 4), through T1 and T2.
#define ADDWIDE(Y, X, T1, T2, XT2) \
	VCVTPS2PD    X, T1 \
	VEXTRACTF128 $1, Y, XT2 \
	VCVTPS2PD    XT2, T2 \
	VADDPD       T1, Y5, Y5 \
	VADDPD       T2, Y6, Y6

// func sumExp8(n int, x *float32, m float32) float64
//
// The sum of exp(min(x[i] − m, 0)) for i < n, each exponential as in
// expSum8 (EXPBLOCK), x left as it is: 16 numbers a step in two
// independent blocks, then 8, then the last n mod 8 through a mask (the
// lanes past the end cleared). The results are widened to float64 and
// added to two accumulators of 4, so that summing a whole vocabulary adds
// no rounding of its own.
TEXT ·sumExp8(SB), NOSPLIT, $0-32
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	VBROADCASTSS m+16(FP), Y15
	VXORPS       Y14, Y14, Y14          // 0
	VMOVUPS      expconst<>+352(SB), Y13 // -87.5
	VXORPD       Y5, Y5, Y5             // sums of the low and high 4 lanes
	VXORPD       Y6, Y6, Y6
	VMOVUPS      expconst<>+0(SB), Y11
	VMOVUPS      expconst<>+32(SB), Y10
	VMOVUPS      expconst<>+64(SB), Y9

loop16:
	CMPQ    CX, $16
	JLT     loop8
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y7
	EXPBLOCK
	EXPBLOCKB
	ADDWIDE(Y0, X0, Y1, Y2, X2)
	ADDWIDE(Y7, X7, Y1, Y2, X2)
	VMOVUPS expconst<>+32(SB), Y10      // EXPBLOCKB used Y9 and Y10
	VMOVUPS expconst<>+64(SB), Y9
	ADDQ    $64, SI
	SUBQ    $16, CX
	JMP     loop16

loop8:
	CMPQ    CX, $8
	JLT     tail
	VMOVUPS (SI), Y0
	EXPBLOCK
	ADDWIDE(Y0, X0, Y1, Y2, X2)
	ADDQ    $32, SI
	SUBQ    $8, CX

tail:
	TESTQ      CX, CX
	JEQ        sum
	LEAQ       tailmask<>+32(SB), AX
	SHLQ       $2, CX
	SUBQ       CX, AX
	VMOVUPS    (AX), Y8
	VMASKMOVPS (SI), Y8, Y0
	EXPBLOCK
	VANDPS     Y8, Y0, Y0               // lanes past the end add nothing
	ADDWIDE(Y0, X0, Y1, Y2, X2)

sum:
	VADDPD       Y6, Y5, Y5
	VEXTRACTF128 $1, Y5, X1
	VADDPD       X1, X5, X0
	VHADDPD      X0, X0, X0
	VMOVSD       X0, ret+24(FP)
	VZEROUPPER
	RET
