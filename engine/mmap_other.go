//go:build !linux

package engine

import "os"

// mapFile maps a checkpoint into memory where the engine knows how; here
// it does not, and LoadModel reads the file.
func mapFile(f *os.File, size int64) ([]byte, bool) { return nil, false }

func unmapFile(data []byte) {}
