//go:build !linux

package engine

// weightSlice returns n zeros to hold a weight matrix (in ordinary pages:
// see the Linux version).
func weightSlice(n int64) []float32 { return make([]float32, n) }
