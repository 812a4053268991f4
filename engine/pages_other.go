//go:build !linux

package engine

// dropPages does nothing where the engine does not map files (see
// pages_linux.go).
func dropPages(b []byte) {}
