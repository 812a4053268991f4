package memory

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// systemLimits reads Linux's limits: MemAvailable, the memory control
// group (version 1 or 2) and the data-segment and address-space limits.
func systemLimits() []Limit {
	var out []Limit
	if kb, ok := statusField("/proc/meminfo", "MemAvailable:"); ok {
		out = append(out, Limit{kb * 1024, "MemAvailable in /proc/meminfo"})
	}
	for _, cg := range []struct{ limit, usage string }{
		{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
		{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"},
	} {
		limit, ok1 := readInt(cg.limit)
		usage, ok2 := readInt(cg.usage)
		if ok1 && ok2 && limit < 1<<60 { // "max", or v1's huge "no limit"
			out = append(out, Limit{limit - usage, "the control group's limit in " + cg.limit})
			break
		}
	}
	// The Go runtime's free heap counts against the rlimits but can be
	// reused, so it is added back.
	_, free := goHeld()
	reusable := int64(free)
	for _, rl := range []struct {
		res    int
		field  string
		source string
	}{
		{syscall.RLIMIT_DATA, "VmData:", "the data-segment limit, ulimit -d"},
		{syscall.RLIMIT_AS, "VmSize:", "the address-space limit, ulimit -v"},
	} {
		var lim syscall.Rlimit
		if syscall.Getrlimit(rl.res, &lim) != nil || lim.Cur == ^uint64(0) || lim.Cur > 1<<62 {
			continue
		}
		used, ok := statusField("/proc/self/status", rl.field)
		if !ok {
			continue
		}
		out = append(out, Limit{int64(lim.Cur) - used*1024 + reusable, rl.source})
	}
	return out
}

// statusField reads a "Name:  123 kB" line of a /proc file, in kB.
func statusField(path, name string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, name); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0, false
			}
			v, err := strconv.ParseInt(f[0], 10, 64)
			return v, err == nil
		}
	}
	return 0, false
}

// readInt reads a file holding one integer.
func readInt(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return v, err == nil
}
