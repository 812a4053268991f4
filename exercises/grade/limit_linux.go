package main

import "golang.org/x/sys/unix"

// limitMemory caps the data memory of a started test process, so a
// submission that allocates without end fails its own test instead of
// exhausting the machine. It is applied right after the process starts, before
// the Go runtime has set up more than its first arenas.
func limitMemory(pid int, bytes int64) {
	if bytes <= 0 {
		return
	}
	lim := unix.Rlimit{Cur: uint64(bytes), Max: uint64(bytes)}
	_ = unix.Prlimit(pid, unix.RLIMIT_DATA, &lim, nil)
}
