//go:build !linux

package memory

// systemLimits knows no operating-system limits outside Linux: only the Go
// runtime's own limit applies there.
func systemLimits() []Limit { return nil }
