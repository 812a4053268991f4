package f16

// useF16C says whether Encode and Decode use VCVTPS2PH and VCVTPH2PS.
// Tests switch it off to compare.
var useF16C = hasF16C

// hasF16C reports whether the CPU has F16C (bit 29 of ECX for CPUID leaf
// 1) and the operating system saves the AVX registers (bits 27 and 28:
// OSXSAVE and AVX), which the VEX-encoded conversions need.
var hasF16C = func() bool {
	_, _, c, _ := cpuid(1, 0)
	const want = 1<<29 | 1<<28 | 1<<27
	return c&want == want
}()

//go:noescape
func cpuid(leaf, sub uint32) (a, b, c, d uint32)

// encode8 converts n groups of 8 float32 at src to f16 at dst.
//
//go:noescape
func encode8(n int, dst *uint16, src *float32)

// decode8 converts n groups of 8 f16 at src to float32 at dst.
//
//go:noescape
func decode8(n int, dst *float32, src *uint16)
