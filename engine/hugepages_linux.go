package engine

import (
	"syscall"
	"unsafe"
)

// weightSlice returns n zeros to hold a weight matrix. A decoding step
// reads every weight once, so, as for a mapped file (see mapFile), the
// processor walks all of them every step, and does so faster in 2 MB
// pages than in 4 kB ones: the kernel is asked to back the whole 2 MB
// pages inside a large matrix with them when they are first written. If it
// cannot, or refuses, the matrix is in ordinary pages and works the same.
func weightSlice(n int64) []float32 {
	s := make([]float32, n)
	if n >= hugePageSize/4 {
		p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
		start := (p + hugePageSize - 1) &^ (hugePageSize - 1)
		end := (p + uintptr(4*n)) &^ (hugePageSize - 1)
		if end > start {
			syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_HUGEPAGE)
		}
	}
	return s
}

// hugePageSize is the size of the processor's large pages on amd64 and
// arm64 Linux: 2 MB.
const hugePageSize = 2 << 20
