package engine

import "github.com/tokenbytoken/course/engine/internal/memory"

// The engine sizes its memory by the work asked: a State's KV cache and
// attention scratch grow with the sequence actually run, never with the
// context a checkpoint's header claims. Before any big allocation — the
// weights of a file being loaded, a cache growing, the buffers of a long
// prompt — it compares the bytes needed with the memory available (the
// system's, a control group's limit, ulimit -d and -v, GOMEMLIMIT) and
// refuses with a MemoryError naming both numbers, where Go itself would
// crash the whole program.

// MemoryError reports work that does not fit in the memory available:
// what needed the memory, how many bytes, and the limit that stood in the
// way. Test for it with errors.As.
type MemoryError = memory.Error

// uncheckedBytes is the size below which allocations are not checked:
// reading the limits costs more than such an allocation, and any machine
// that runs Go has that much to spare.
const uncheckedBytes = 16 << 20

// checkMemory returns a *MemoryError when need bytes are more than the
// memory available. what says what needs them.
func checkMemory(what string, need int64) error {
	if need >= 0 && need < uncheckedBytes {
		return nil
	}
	return memory.Check(what, need)
}
