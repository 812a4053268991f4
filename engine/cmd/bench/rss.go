package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// residentMemory returns the process's resident memory now and at its
// peak, in bytes, from /proc/self/status (VmRSS and VmHWM). Where there is
// no such file (systems other than Linux) both are 0: unknown.
func residentMemory() (now, peak int64) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			continue
		}
		if name == "VmRSS" {
			now = kb << 10
		} else {
			peak = kb << 10
		}
	}
	return now, peak
}
