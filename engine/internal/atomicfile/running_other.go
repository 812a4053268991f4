//go:build !unix

package atomicfile

// running cannot ask about other processes here; Clean goes by age.
func running(pid int) (alive, known bool) { return false, false }
