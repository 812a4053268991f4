// Package limittest runs tests, and commands, in a child process under a
// memory limit, so that a test of hostile input that makes the code
// allocate without bound fails — the child dies with "out of memory" —
// instead of exhausting the machine that runs it.
//
// A test package opts in with a TestMain that calls Main:
//
//	func TestMain(m *testing.M) { limittest.Main(m, run) }
//
// where run is the command's entry point (or nil for a library). The
// parent's tests then call Run to run their cases in a limited child (and
// report each case's result as a subtest), or Command to run the command
// itself there; inside that child Limited reports true.
//
// The limit is the data-segment limit (RLIMIT_DATA, ulimit -d), which
// covers every heap allocation of a Go program. It exists on Linux; on
// other systems the hostile tests are skipped.
package limittest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Environment variables that tell a child what to do.
const (
	limitEnv = "TOKENBYTOKEN_TEST_DATA_LIMIT" // bytes
	argsEnv  = "TOKENBYTOKEN_TEST_COMMAND"    // the command's arguments, as JSON
)

// Main is TestMain for a package whose tests use Tests or Command. In a
// child it applies the limit and then either runs the command (run, with
// the arguments the parent gave, exiting with its status) or the tests.
func Main(m *testing.M, run func(args []string, stdout, stderr io.Writer) int) {
	if v := os.Getenv(limitEnv); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err == nil {
			err = setLimit(n)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "limittest: cannot limit memory to %q bytes: %v\n", v, err)
			os.Exit(3)
		}
	}
	if js := os.Getenv(argsEnv); js != "" && run != nil {
		var args []string
		if err := json.Unmarshal([]byte(js), &args); err != nil {
			fmt.Fprintf(os.Stderr, "limittest: bad command arguments %q: %v\n", js, err)
			os.Exit(3)
		}
		os.Exit(run(args, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// Limited reports whether this process runs under a limit set by Main.
func Limited() bool { return os.Getenv(limitEnv) != "" }

// Case is one test run under the limit: Name becomes its subtest's name.
type Case struct {
	Name string
	Test func(t *testing.T)
}

// Run runs every case as a subtest of t in a child process limited to
// limit bytes. The child is the test binary itself, asked to run t alone:
// there (Limited is true) Run runs the cases. Back in the parent, each case
// gets a subtest of the same name that passes, fails or is skipped as it
// did in the child, so a test report lists every case with its result; a
// case that failed shows its output, and a child that died (out of memory,
// say so plainly) fails every case it had not finished.
func Run(t *testing.T, limit int64, cases []Case) {
	t.Helper()
	if Limited() {
		for _, c := range cases {
			t.Run(c.Name, c.Test)
		}
		return
	}
	if !Supported() {
		t.Skip("no data-segment limit on this system")
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^"+regexp.QuoteMeta(t.Name())+"$", "-test.count", "1", "-test.v")
	cmd.Env = append(os.Environ(), limitEnv+"="+strconv.FormatInt(limit, 10))
	out, err := cmd.CombinedOutput()
	results := parseResults(string(out), t.Name())
	for _, c := range cases {
		r, ok := results[c.Name]
		t.Run(c.Name, func(t *testing.T) {
			switch {
			case !ok:
				t.Fatalf("did not finish in the child under a %d MiB data limit (%v)\n%s%s", limit>>20, err, oomNote(string(out)), out)
			case r.status == "FAIL":
				t.Fatalf("failed in the child under a %d MiB data limit:\n%s", limit>>20, r.output)
			case r.status == "SKIP":
				t.Skip(strings.TrimSpace(r.output))
			}
		})
	}
	failed := false
	for _, r := range results {
		failed = failed || r.status == "FAIL"
	}
	// A child that failed without a failing case (a panic after the
	// cases, a bad flag): its whole output.
	if err != nil && !failed && len(results) == len(cases) {
		t.Fatalf("the child under a %d MiB data limit: %v\n%s%s", limit>>20, err, oomNote(string(out)), out)
	}
}

// result is one case's outcome in the child's -test.v output.
type result struct {
	status string // PASS, FAIL or SKIP
	output string // what the case logged
}

// cutRun returns the test name after parent+"/" on a "=== RUN" or
// "=== CONT" line.
func cutRun(line, parent string) (string, bool) {
	for _, p := range []string{"=== RUN   ", "=== CONT  "} {
		if name, ok := strings.CutPrefix(line, p+parent+"/"); ok {
			return name, true
		}
	}
	return "", false
}

// parseResults reads the child's -test.v output: for each direct subtest
// of parent, its status and log lines.
func parseResults(out, parent string) map[string]result {
	results := make(map[string]result)
	logs := make(map[string]*strings.Builder)
	current := ""
	for _, line := range strings.Split(out, "\n") {
		trimmed := strings.TrimSpace(line)
		if name, ok := cutRun(trimmed, parent); ok {
			current, _, _ = strings.Cut(name, "/") // a case's subtests log into the case
			if logs[current] == nil {
				logs[current] = &strings.Builder{}
			}
			continue
		}
		for _, status := range []string{"PASS", "FAIL", "SKIP"} {
			rest, ok := strings.CutPrefix(trimmed, "--- "+status+": "+parent+"/")
			if !ok {
				continue
			}
			name, _, _ := strings.Cut(rest, " (")
			if strings.Contains(name, "/") {
				break // a subtest of a case: its case reports for it
			}
			r := result{status: status}
			if b := logs[name]; b != nil {
				r.output = b.String()
			}
			results[name] = r
			current = ""
		}
		if current != "" && !strings.HasPrefix(trimmed, "=== ") && !strings.HasPrefix(trimmed, "--- ") {
			logs[current].WriteString(line + "\n")
		}
	}
	return results
}

// Result is what a command run by Command did.
type Result struct {
	Status         int
	Stdout, Stderr string
}

// Command runs the package's command (the run given to Main) with args in a
// child limited to limit bytes. A child that runs out of memory fails t.
func Command(t *testing.T, limit int64, args ...string) Result {
	t.Helper()
	if !Supported() {
		t.Skip("no data-segment limit on this system")
	}
	js, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), limitEnv+"="+strconv.FormatInt(limit, 10), argsEnv+"="+string(js))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running %v: %v", args, err)
	}
	r := Result{Status: cmd.ProcessState.ExitCode(), Stdout: stdout.String(), Stderr: stderr.String()}
	if note := oomNote(r.Stderr); note != "" {
		t.Fatalf("%v under a %d MiB data limit: %s%s", args, limit>>20, note, r.Stderr)
	}
	return r
}

// oomNote says plainly when a child died for lack of memory.
func oomNote(out string) string {
	if strings.Contains(out, "out of memory") || strings.Contains(out, "cannot allocate memory") {
		return "RAN OUT OF MEMORY: some input makes the code allocate without bound\n"
	}
	return ""
}

// NoPanic runs f and turns a panic into a test failure naming the case:
// a hostile input must end in an error, never a crash.
func NoPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: panicked: %v", name, r)
		}
	}()
	f()
}

// WantErr fails unless err is an error whose text holds every one of
// want.
func WantErr(t *testing.T, name string, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error; want one containing %q", name, want)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q lacks %q", name, err, w)
		}
	}
}

// Counting is a context whose Err reports cancellation from its
// CancelAt-th call on, and counts the calls in Calls: a deterministic way
// to cancel in the middle of a pass.
type Counting struct {
	context.Context
	Calls, CancelAt int
}

// CountingContext returns a Counting context that is cancelled at the
// cancelAt-th call of its Err.
func CountingContext(cancelAt int) *Counting {
	return &Counting{Context: context.Background(), CancelAt: cancelAt}
}

// Err reports context.Canceled from the CancelAt-th call on.
func (c *Counting) Err() error {
	c.Calls++
	if c.Calls >= c.CancelAt {
		return context.Canceled
	}
	return nil
}
