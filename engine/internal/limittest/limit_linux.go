package limittest

import "syscall"

// Supported reports whether this system can limit a child's memory.
func Supported() bool { return true }

// setLimit caps this process's data segment at n bytes.
func setLimit(n int64) error {
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: uint64(n), Max: uint64(n)})
}
