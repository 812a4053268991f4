//go:build !amd64

package f16

// Without F16C kernels for this architecture, the conversions are in Go.
var (
	useF16C = false
	hasF16C = false
)

func encode8(n int, dst *uint16, src *float32) { panic("f16: no kernels on this architecture") }

func decode8(n int, dst *float32, src *uint16) { panic("f16: no kernels on this architecture") }
