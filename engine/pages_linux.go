package engine

import (
	"os"
	"syscall"
	"unsafe"
)

// dropPages tells the kernel that the process no longer needs the pages
// wholly inside b, part of a file it mapped read-only: they leave its
// resident memory (and would be read again from the file if touched).
// Loading a GGUF model copies most matrices into a layout of their own;
// dropping each tensor's pages once it is copied keeps the resident memory
// near the file's size while it loads, not twice that.
func dropPages(b []byte) {
	if len(b) == 0 {
		return
	}
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(&b[0]))
	first := (start + page - 1) &^ (page - 1) // the first whole page
	last := (start + uintptr(len(b))) &^ (page - 1)
	if first >= last {
		return
	}
	lo := first - start
	syscall.Madvise(b[lo:lo+(last-first)], syscall.MADV_DONTNEED)
}
