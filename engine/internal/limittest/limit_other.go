//go:build !linux

package limittest

import "errors"

// Supported reports whether this system can limit a child's memory.
func Supported() bool { return false }

func setLimit(n int64) error { return errors.New("no data-segment limit on this system") }
