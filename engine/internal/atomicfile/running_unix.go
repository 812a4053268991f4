//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// running reports whether a process with this id exists: signal 0 checks
// without sending anything.
func running(pid int) (alive, known bool) {
	err := syscall.Kill(pid, 0)
	if errors.Is(err, syscall.ESRCH) {
		return false, true
	}
	return true, err == nil || errors.Is(err, syscall.EPERM)
}
