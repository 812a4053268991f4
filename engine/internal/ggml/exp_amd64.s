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
