package gguf

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps f's size bytes read-only, and reports whether it could. A
// file too short for a header is read instead (a mapping cannot be
// empty, and parsing will refuse it anyway).
func mapFile(f *os.File, size int64) ([]byte, bool) {
	if size < headerSize {
		return nil, false
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, false // a file system that cannot map, or a limit on mappings: read it
	}
	return data, true
}

func unmapFile(data []byte) error { return unix.Munmap(data) }
