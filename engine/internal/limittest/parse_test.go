package limittest

import (
	"strings"
	"testing"
)

func TestParseResults(t *testing.T) {
	out := `=== RUN   TestUnderMemoryLimit
=== RUN   TestUnderMemoryLimit/Files
=== RUN   TestUnderMemoryLimit/Files/fifo
    hostile_test.go:12: refused the FIFO: not a regular file
--- PASS: TestUnderMemoryLimit/Files/fifo (0.00s)
--- PASS: TestUnderMemoryLimit/Files (0.01s)
=== RUN   TestUnderMemoryLimit/Memory
    hostile_test.go:40: NewKVCache(1<<40) = nil; want an error
--- FAIL: TestUnderMemoryLimit/Memory (0.02s)
=== RUN   TestUnderMemoryLimit/Beam
    hostile_test.go:77: no beam search here
--- SKIP: TestUnderMemoryLimit/Beam (0.00s)
--- FAIL: TestUnderMemoryLimit (0.03s)
FAIL
`
	got := parseResults(out, "TestUnderMemoryLimit")
	if len(got) != 3 {
		t.Fatalf("parseResults found %d cases %v; want 3 (Files, Memory, Beam)", len(got), got)
	}
	if r := got["Files"]; r.status != "PASS" || !strings.Contains(r.output, "refused the FIFO") {
		t.Errorf("Files = %+v; want PASS with its subtest's log", r)
	}
	if r := got["Memory"]; r.status != "FAIL" || !strings.Contains(r.output, "want an error") {
		t.Errorf("Memory = %+v; want FAIL with the failure message", r)
	}
	if r := got["Beam"]; r.status != "SKIP" || !strings.Contains(r.output, "no beam search") {
		t.Errorf("Beam = %+v; want SKIP with the reason", r)
	}
	if _, ok := got["Files/fifo"]; ok {
		t.Error("a case's own subtest was reported as a case")
	}
}

func TestParseResultsOfADeadChild(t *testing.T) {
	out := "=== RUN   TestUnderMemoryLimit\n=== RUN   TestUnderMemoryLimit/Memory\nfatal error: runtime: out of memory\n"
	if got := parseResults(out, "TestUnderMemoryLimit"); len(got) != 0 {
		t.Errorf("parseResults of a child that died mid-case = %v; want no results", got)
	}
	if oomNote(out) == "" {
		t.Error("oomNote missed \"out of memory\"")
	}
}
