package engine

import (
	"encoding/binary"
	"os"
	"syscall"
)

// mapFile maps size bytes of f into memory, private and writable (a write
// copies the page it touches; the file never changes), and reports whether
// it could. It does not map a file too short for a header (ReadModel
// reports those), nor on a machine whose float32 byte order is not the
// file's little-endian one.
func mapFile(f *os.File, size int64) ([]byte, bool) {
	if size < headerSize || int64(int(size)) != size || binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		return nil, false
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, false // a limit on mappings, a file system that cannot map: read it instead
	}
	// A decoding step reads every weight once, so the processor walks the
	// whole mapping every step. In 2 MB pages rather than 4 kB ones that
	// walk needs 512 times fewer page-table entries, and a step is faster.
	// The kernel gives such pages where the file's cached pages allow (a
	// file read in while this advice holds, or written in writes of 2 MB or
	// more: see atomicfile); where they do not, or the advice is refused,
	// the mapping works as it is.
	syscall.Madvise(data, syscall.MADV_HUGEPAGE)
	return data, true
}

// unmapFile releases a mapping made by mapFile that nothing refers to.
func unmapFile(data []byte) { syscall.Munmap(data) }
