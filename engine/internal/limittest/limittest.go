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
// parent's tests then call Tests to re-run some of them in a limited child,
// or Command to run the command itself there; inside that child Limited
// reports true, so the hostile tests can skip themselves anywhere else.
//
// The limit is the data-segment limit (RLIMIT_DATA, ulimit -d), which
// covers every heap allocation of a Go program. It exists on Linux; on
// other systems the hostile tests are skipped.
package limittest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
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

// Skip skips a hostile test outside a limited child.
func Skip(t *testing.T) {
	t.Helper()
	if !Limited() {
		t.Skip("runs only under a memory limit (see TestUnderMemoryLimit)")
	}
}

// Tests re-runs the tests matching pattern in a child limited to limit
// bytes, and fails t with the child's output if any of them fails —
// saying so plainly when the child ran out of memory.
func Tests(t *testing.T, pattern string, limit int64) {
	t.Helper()
	if !Supported() {
		t.Skip("no data-segment limit on this system")
	}
	cmd := exec.Command(os.Args[0], "-test.run", pattern, "-test.count", "1")
	cmd.Env = append(os.Environ(), limitEnv+"="+strconv.FormatInt(limit, 10))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tests %s under a %d MiB data limit: %v\n%s%s", pattern, limit>>20, err, oomNote(string(out)), out)
	}
	if testing.Verbose() {
		t.Logf("tests %s under a %d MiB data limit:\n%s", pattern, limit>>20, out)
	}
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
