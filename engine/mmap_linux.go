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
	return data, true
}

// unmapFile releases a mapping made by mapFile that nothing refers to.
func unmapFile(data []byte) { syscall.Munmap(data) }
