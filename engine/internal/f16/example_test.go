package f16_test

import (
	"fmt"

	"github.com/tokenbytoken/course/engine/internal/f16"
)

// An f16 keeps 11 significant bits: about 3 decimal digits, up to 65504.
func ExampleRound() {
	for _, x := range []float32{1.0001, 3.14159265, 1000.3, 65504, 65520, 1e-8} {
		fmt.Printf("%g → %g (%#04x)\n", x, f16.Round(x), f16.FromFloat32(x))
	}
	// Output:
	// 1.0001 → 1 (0x3c00)
	// 3.1415927 → 3.140625 (0x4248)
	// 1000.3 → 1000.5 (0x63d1)
	// 65504 → 65504 (0x7bff)
	// 65520 → +Inf (0x7c00)
	// 1e-08 → 0 (0x0000)
}
