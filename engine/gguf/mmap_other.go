//go:build !linux

package gguf

import "os"

// mapFile maps a file where this package knows how; here it does not, and
// Open reads the file.
func mapFile(f *os.File, size int64) ([]byte, bool) { return nil, false }

func unmapFile(data []byte) error { return nil }
