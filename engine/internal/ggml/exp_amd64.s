#include "textflag.h"

// VExp 8 numbers at a time, with AVX2 and FMA: the operations of
// ggml_v_expf's AVX-512 form, in the same order, so the same bits. Its
// last step, _mm512_scalef_ps(j, n) = j·2ⁿ rounded once, is done as
// (j·2^⌊n/2⌋)·2^(n−⌊n/2⌋): the first product is exact, j being near 1
// and |n| at most 192, so the second rounds once.

#define VEC(name, bits) \
	DATA name<>+0(SB)/4, $bits;  \
	DATA name<>+4(SB)/4, $bits;  \
	DATA name<>+8(SB)/4, $bits;  \
	DATA name<>+12(SB)/4, $bits; \
	DATA name<>+16(SB)/4, $bits; \
	DATA name<>+20(SB)/4, $bits; \
	DATA name<>+24(SB)/4, $bits; \
	DATA name<>+28(SB)/4, $bits; \
	GLOBL name<>(SB), RODATA|NOPTR, $32

VEC(log2e, 0x3fb8aa3b)   // 0x1.715476p+0
VEC(shift, 0x4b400000)   // 0x1.8p23
VEC(ln2hi, 0x3f317200)   // 0x1.62e4p-1
VEC(ln2lo, 0x35bfbe8e)   // 0x1.7f7d1cp-20
VEC(p5, 0x3c072010)      // 0x1.0e4020p-7
VEC(p4, 0x3d2b9f17)      // 0x1.573e2ep-5
VEC(p3, 0x3e2aaf33)      // 0x1.555e66p-3
VEC(p2, 0x3efffedb)      // 0x1.fffdb6p-2
VEC(p1, 0x3f7ffff6)      // 0x1.ffffecp-1
VEC(one, 0x3f800000)     // 1
VEC(lim, 0x43400000)     // 192
VEC(inf, 0x7f800000)     // +Inf
VEC(absmask, 0x7fffffff) // the magnitude's bits
VEC(bias, 0x0000007f)    // 127, the float32 exponent's bias

// VEXP sets out to VExp(x); x is kept; Y9–Y14 are clobbered.
#define VEXP(x, out) \
	VMOVUPS      shift<>(SB), Y9;       \
	VFMADD231PS  log2e<>(SB), x, Y9 /* z = x·log₂e + shift */; \
	VSUBPS       shift<>(SB), Y9, Y9 /* n = z − shift */; \
	VMOVAPS      x, Y10;                \
	VFNMADD231PS ln2hi<>(SB), Y9, Y10 /* x − n·ln2hi */; \
	VFNMADD231PS ln2lo<>(SB), Y9, Y10 /* b = that − n·ln2lo */; \
	VMULPS       Y10, Y10, Y11 /* u = b² */; \
	VMOVUPS      p4<>(SB), Y12;         \
	VFMADD231PS  p5<>(SB), Y10, Y12 /* p5·b + p4 */; \
	VMOVUPS      p2<>(SB), Y13;         \
	VFMADD231PS  p3<>(SB), Y10, Y13 /* p3·b + p2 */; \
	VFMADD231PS  Y11, Y12, Y13 /* (p5·b + p4)·u + (p3·b + p2) */; \
	VMOVUPS      one<>(SB), out;        \
	VFMADD231PS  p1<>(SB), Y10, out /* p1·b + 1 */; \
	VFMADD231PS  Y11, Y13, out /* j */; \
	VCVTTPS2DQ   Y9, Y11 /* n as an integer */; \
	VPSRAD       $1, Y11, Y12 /* n1 = ⌊n/2⌋ */; \
	VPSUBD       Y12, Y11, Y11 /* n2 = n − n1 */; \
	VPADDD       bias<>(SB), Y12, Y12;  \
	VPSLLD       $23, Y12, Y12 /* 2^n1 */; \
	VPADDD       bias<>(SB), Y11, Y11;  \
	VPSLLD       $23, Y11, Y11 /* 2^n2 */; \
	VMULPS       Y12, out, out;         \
	VMULPS       Y11, out, out /* j·2ⁿ */; \
	VANDPS       absmask<>(SB), Y9, Y10; \
	VCMPPS       $0x1e, lim<>(SB), Y10, Y10 /* |n| > 192 (ordered) */; \
	VXORPS       Y11, Y11, Y11;         \
	VCMPPS       $0x12, Y11, Y9, Y12 /* n ≤ 0 (ordered) */; \
	VANDNPS      inf<>(SB), Y12, Y12 /* there 0, else +Inf */; \
	VBLENDVPS    Y10, Y12, out, out

// func vexp8(n int, dst, src *float32)
TEXT ·vexp8(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI

loop:
	VMOVUPS (SI), Y0
	VEXP(Y0, Y1)
	VMOVUPS Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop
	VZEROUPPER
	RET

// func swiglu8(n int, gate, up *float32)
//
// gate = gate/(1 + VExp(0 − gate))·up, 8 at a time.
TEXT ·swiglu8(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ gate+8(FP), DI
	MOVQ up+16(FP), SI

loop:
	VMOVUPS (DI), Y0
	VXORPS  Y1, Y1, Y1
	VSUBPS  Y0, Y1, Y1 // 0 − x
	VEXP(Y1, Y2)
	VADDPS  one<>(SB), Y2, Y2
	VDIVPS  Y2, Y0, Y0
	VMULPS  (SI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop
	VZEROUPPER
	RET

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// Exp, 4 numbers at a time, in float64 as in exp.go: the same operations
// (z·32/ln 2, the rounding by 1.5·2⁵², the table of 2^(i/32) read by a
// gather, the polynomial by fused multiply-adds), then the edges of its
// range blended in.

#define VEC4D(name, bits) \
	DATA name<>+0(SB)/8, $bits;  \
	DATA name<>+8(SB)/8, $bits;  \
	DATA name<>+16(SB)/8, $bits; \
	DATA name<>+24(SB)/8, $bits; \
	GLOBL name<>(SB), RODATA|NOPTR, $32

#define VEC4F(name, bits) \
	DATA name<>+0(SB)/4, $bits;  \
	DATA name<>+4(SB)/4, $bits;  \
	DATA name<>+8(SB)/4, $bits;  \
	DATA name<>+12(SB)/4, $bits; \
	GLOBL name<>(SB), RODATA|NOPTR, $16

VEC4D(invln2n, 0x40471547652b82fe) // 0x1.71547652b82fep+0 · 32
VEC4D(dshift, 0x4338000000000000)  // 0x1.8p+52
VEC4D(ec0, 0x3ebc6af84b912394)     // 0x1.c6af84b912394p-5 / 32³
VEC4D(ec1, 0x3f2ebfce50fac4f3)     // 0x1.ebfce50fac4f3p-3 / 32²
VEC4D(ec2, 0x3f962e42ff0c52d6)     // 0x1.62e42ff0c52d6p-1 / 32
VEC4D(done, 0x3ff0000000000000)    // 1
VEC4D(low5, 0x000000000000001f)    // 31
VEC4F(ulim, 0xc2cff1b4)            // −0x1.9fe368p6: below, 0
VEC4F(olim, 0x42b17217)            // 0x1.62e42ep6: above, +Inf
VEC4F(finf, 0x7f800000)

// func expf4(n int, x *float32, tab *uint64)
//
// x[i] = Exp(x[i]) for i < 4n; tab is exp2Table.
TEXT ·expf4(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), DI
	MOVQ tab+16(FP), R8

loop:
	VMOVUPS     (DI), X0
	VCVTPS2PD   X0, Y1
	VMULPD      invln2n<>(SB), Y1, Y1 // z
	VADDPD      dshift<>(SB), Y1, Y2  // kd = z + shift; its bits are ki
	VSUBPD      dshift<>(SB), Y2, Y3
	VSUBPD      Y3, Y1, Y3            // r = z − (kd − shift)
	VPAND       low5<>(SB), Y2, Y4
	VPCMPEQQ    Y5, Y5, Y5
	VPGATHERQQ  Y5, (R8)(Y4*8), Y6    // tab[ki mod 32]
	VPSLLQ      $47, Y2, Y7
	VPADDQ      Y7, Y6, Y6            // s
	VMOVUPD     ec1<>(SB), Y7
	VFMADD231PD ec0<>(SB), Y3, Y7     // c0·r + c1
	VMULPD      Y3, Y3, Y8            // r²
	VMOVUPD     done<>(SB), Y9
	VFMADD231PD ec2<>(SB), Y3, Y9     // c2·r + 1
	VFMADD231PD Y8, Y7, Y9            // (c0·r + c1)·r² + that
	VMULPD      Y6, Y9, Y9
	VCVTPD2PSY  Y9, X10

	// x < −103.97 (and −Inf): 0; x > 88.72 (and +Inf): +Inf; NaN: x + x.
	VCMPPS    $0x11, ulim<>(SB), X0, X11
	VANDNPS   X10, X11, X10
	VCMPPS    $0x1e, olim<>(SB), X0, X11
	VBLENDVPS X11, finf<>(SB), X10, X10
	VCMPPS    $3, X0, X0, X11
	VADDPS    X0, X0, X12
	VBLENDVPS X11, X12, X10, X10
	VMOVUPS   X10, (DI)
	ADDQ      $16, DI
	DECQ      CX
	JNZ       loop
	VZEROUPPER
	RET
