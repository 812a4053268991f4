// Package memory tells how many more bytes a program may allocate, so that
// work too big for the machine is refused up front with a message naming
// the numbers, instead of the Go runtime dying halfway with "out of memory".
//
// The answer is the smallest of every limit that applies: the memory the
// operating system still has available, a control group's limit, the
// process's own resource limits (ulimit -d and -v) and the Go runtime's
// soft limit (debug.SetMemoryLimit or GOMEMLIMIT). Limits that cannot be
// read are ignored, so on a system that reports none the answer is
// "unlimited".
package memory

import (
	"fmt"
	"math"
	"runtime/debug"
	"runtime/metrics"
)

// Limit is how many more bytes the program may allocate and which limit
// says so.
type Limit struct {
	Bytes  int64  // bytes still available; math.MaxInt64 when nothing limits it
	Source string // the limit that decided, e.g. "the data-segment limit, ulimit -d"
}

// Unlimited reports whether no limit was found.
func (l Limit) Unlimited() bool { return l.Bytes == math.MaxInt64 }

// String is "1.2 GB (MemAvailable in /proc/meminfo)".
func (l Limit) String() string {
	if l.Unlimited() {
		return "no known limit"
	}
	return fmt.Sprintf("%s (%s)", Format(l.Bytes), l.Source)
}

// Available returns the tightest of every limit that applies now.
func Available() Limit {
	best := Limit{Bytes: math.MaxInt64}
	consider := func(bytes int64, source string) {
		if bytes < best.Bytes {
			best = Limit{Bytes: max(bytes, 0), Source: source}
		}
	}
	for _, l := range systemLimits() {
		consider(l.Bytes, l.Source)
	}
	if soft := debug.SetMemoryLimit(-1); soft < math.MaxInt64 {
		total, free := goHeld()
		consider(soft-int64(total-free), "the Go runtime's limit, GOMEMLIMIT or debug.SetMemoryLimit")
	}
	return best
}

// Check returns an error when need bytes are more than the memory
// available: what needs them, how much, and which limit stands in the way.
func Check(what string, need int64) error {
	if need < 0 {
		need = math.MaxInt64 // the count overflowed: far too big
	}
	l := Available()
	if need <= l.Bytes {
		return nil
	}
	return &Error{What: what, Need: need, Limit: l}
}

// Error reports work that cannot fit in the memory available.
type Error struct {
	What  string // what needs the memory, e.g. "the KV cache for 4096 positions"
	Need  int64  // bytes it needs
	Limit Limit  // what is available
}

func (e *Error) Error() string {
	need := Format(e.Need)
	if e.Need == math.MaxInt64 {
		need = "more bytes than an int64 can count"
	}
	return fmt.Sprintf("%s needs %s, but only %s is available", e.What, need, e.Limit)
}

// Format writes a byte count for people: "512 B", "3.4 MB", "1.1 TB"
// (powers of 1000).
func Format(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), 0
	for v >= unit && i < 6 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %cB", v, "kMGTPE"[i-1])
}

// goHeld is the memory the Go runtime holds from the system now, and the
// part of it that is heap not in use: free for the next allocations.
func goHeld() (total, free uint64) {
	s := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	metrics.Read(s)
	total = s[0].Value.Uint64()
	free = min(s[1].Value.Uint64()+s[2].Value.Uint64(), total)
	return total, free
}
