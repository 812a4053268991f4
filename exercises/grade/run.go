package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Statuses of a graded test.
const (
	StatusPass    = "pass"
	StatusFail    = "fail"
	StatusError   = "error"   // did not compile, or crashed outside the test's own checks
	StatusTimeout = "timeout" // ran past its time limit
	StatusRace    = "race"    // the race detector saw a data race
	StatusMissing = "missing" // the submission lacks the exercise
)

// outputLimit is how much of one test process's output is kept: the first
// and the last half of it. The rest is read and dropped, so a flood costs the
// learner time, not the grader memory, and the test's own verdict, printed
// last, is kept.
const outputLimit = 64 << 10

// Result is one graded test.
type Result struct {
	Test
	Status   string
	Earned   int
	Message  string
	Duration time.Duration
	output   string // what the test process printed, for the raw record
	initHang bool   // the package's initialisation never finished
}

// Limits bound every test process.
type Limits struct {
	Timeout time.Duration // per test, from the process's start
	Memory  int64         // bytes of data memory per test process; 0: no limit
}

// runDir is where a test process runs, inside the sandbox: its own copy of
// the exercise's testdata. The binary is at runBinary.
const (
	runDir    = "/grade/run"
	runBinary = "/grade/test"
)

// runTest runs one test of a built exercise in a sandboxed process of its
// own and grades it by evidence that graded code cannot produce: the
// process must exit with status 0 and, on a descriptor graded code cannot
// reach, the grader's harness (see harnessSource) must hand back the
// run's token, which it writes only after the test function returned and
// the test passed. Printing "PASS" or ending the process early proves
// nothing. The time limit counts from the process's start, the package's
// initialisation included, and the process is killed at the limit.
func runTest(ctx context.Context, sb *Sandbox, binary, dir string, t Test, lim Limits) Result {
	r := Result{Test: t}
	token := make([]byte, 32)
	if _, err := rand.Read(token); err != nil {
		r.Status, r.Message = StatusError, fmt.Sprintf("could not make the run's token: %v", err)
		return r
	}
	verdictR, verdictW, err := os.Pipe()
	if err != nil {
		r.Status, r.Message = StatusError, fmt.Sprintf("could not start the test: %v", err)
		return r
	}
	defer verdictR.Close()
	tokenR, tokenW, err := os.Pipe()
	if err != nil {
		verdictW.Close()
		r.Status, r.Message = StatusError, fmt.Sprintf("could not start the test: %v", err)
		return r
	}
	_, werr := tokenW.Write(token) // 32 bytes: far below a pipe's buffer
	tokenW.Close()
	if werr != nil {
		verdictW.Close()
		tokenR.Close()
		r.Status, r.Message = StatusError, fmt.Sprintf("could not start the test: %v", werr)
		return r
	}

	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	j := jail{
		binds: []bind{{from: binary, to: runBinary}, {from: dir, to: runDir, write: true}},
		dir:   runDir,
		env: []string{"PATH=/usr/bin:/bin", "HOME=" + runDir, "TMPDIR=" + runDir,
			"GOTRACEBACK=single", "GODEBUG=panicnil=0", "GORACE=atexit_sleep_ms=0"},
		lim: limits{
			data: lim.Memory, cpu: int64(lim.Timeout/time.Second) + 2,
			fsize: 16 << 20, nofile: 64,
		},
	}
	bin := runBinary
	switch {
	case sb == nil:
		j.binds, j.dir, bin = nil, dir, binary
		j.env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + dir, "GOTRACEBACK=single", "GODEBUG=panicnil=0", "GORACE=atexit_sleep_ms=0"}
	case sb.asUser != nil:
		j.user = sb.asUser
		j.lim.nproc = 512 // counted over every process of that user
	}
	return finishRun(ctx, r, sb.command(ctx, j, testArgs(bin, t, lim)...), verdictR, verdictW, tokenR, token, lim)
}

// testArgs runs just one test, quietly: a failing test's messages are
// printed after it returned, as one block (see failureMessage).
func testArgs(binary string, t Test, lim Limits) []string {
	return []string{binary,
		"-test.run=^" + regexp.QuoteMeta(t.Name) + "$",
		"-test.count=1",
		"-test.timeout=" + (lim.Timeout + time.Second).String()}
}

// finishRun starts cmd with the two pipes, waits for it and reads the
// verdict.
func finishRun(ctx context.Context, r Result, cmd *exec.Cmd, verdictR, verdictW, tokenR *os.File, token []byte, lim Limits) Result {
	var stdout, stderr cappedBuffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	cmd.ExtraFiles = []*os.File{verdictW, tokenR} // descriptors 3 and 4
	err := cmd.Start()
	verdictW.Close()
	tokenR.Close()
	if err != nil {
		r.Status, r.Message = StatusError, fmt.Sprintf("could not start the test: %v", err)
		return r
	}
	verdict := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(verdictR, 1024))
		verdict <- b
	}()
	start := time.Now()
	err = cmd.Wait()
	r.Duration = time.Since(start)
	var v []byte
	select {
	case v = <-verdict:
	case <-time.After(time.Second): // a descriptor left open by a stray process
	}
	started := bytes.HasPrefix(v, []byte("started\n"))
	proved := started && bytes.Equal(v[len("started\n"):], token)
	out, errOut := stdout.String(), stderr.String()
	r.output = out + errOut

	switch {
	case ctx.Err() != nil:
		r.Status = StatusTimeout
		r.initHang = !started
		if r.initHang {
			r.Message = fmt.Sprintf("the package's initialisation (package variables and init functions) was still running after %s", lim.Timeout)
		} else {
			r.Message = fmt.Sprintf("still running after %s: an endless loop, or far too slow", lim.Timeout)
		}
	case strings.Contains(errOut, "WARNING: DATA RACE"):
		r.Status, r.Message = StatusRace, "a data race: two goroutines used the same memory without synchronisation (graded code may not start goroutines)"
	case err == nil && proved:
		r.Status, r.Earned = StatusPass, r.Points
	case err == nil:
		r.Status, r.Message = StatusError, "the test process ended without finishing the test (the process was ended early)"
	case strings.Contains(out, "panic: test timed out after"):
		r.Status, r.Message = StatusTimeout, fmt.Sprintf("still running after %s: an endless loop, or far too slow", lim.Timeout)
	case cmd.ProcessState.ExitCode() == 1 && strings.Contains(out, "--- FAIL: "+r.Name+" (") && !strings.Contains(errOut, "\npanic: ") && !strings.HasPrefix(errOut, "panic: "):
		// A test binary exits with 1 when a test failed; a crash exits
		// with 2 or by a signal.
		r.Status, r.Message = StatusFail, failureMessage(out, r.Name)
	case strings.Contains(out, "--- FAIL: "+r.Name+" (") && strings.Contains(errOut, "panic: "):
		// The test itself panicked: the testing package reports the test
		// failed, then crashes.
		r.Status, r.Message = StatusFail, crashMessage(errOut, err)
	default:
		r.Status, r.Message = StatusError, crashMessage(errOut, err)
	}
	return r
}

// fileLine starts a message that t.Error and friends print: "x_test.go:12: ".
var fileLine = regexp.MustCompile(`^\s+[\w.-]+\.go:\d+: `)

// failureMessage is the first message of the test's failure block, without
// its file and line. Tests run quietly, so the testing package prints a
// failed test's messages only after the test function returned, as a block
// under "--- FAIL: name (…)"; graded code cannot run after that, so the last
// such block is the harness's, whatever graded code printed before it.
func failureMessage(out, name string) string {
	head := "--- FAIL: " + name + " ("
	at := strings.LastIndex(out, "\n"+head) + 1 // 0 when not found
	if !strings.HasPrefix(out[at:], head) {
		return "failed"
	}
	lines := strings.Split(out[at:], "\n")[1:]
	for i, line := range lines {
		loc := fileLine.FindStringIndex(line)
		if loc == nil {
			if strings.HasPrefix(line, "    ") {
				continue
			}
			break
		}
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		msg := []string{line[loc[1]:]}
		// Continuation lines are indented deeper than the first.
		for j := i + 1; j < len(lines) && len(msg) < 6; j++ {
			next := lines[j]
			if strings.TrimSpace(next) == "" || len(next)-len(strings.TrimLeft(next, " \t")) <= indent {
				break
			}
			msg = append(msg, strings.TrimSpace(next))
		}
		return shorten(strings.Join(msg, "\n"))
	}
	return "failed"
}

// crashMessage says why a test process ended without a verdict of its own:
// the last panic or fatal error the Go runtime printed (graded code can
// print such lines too, but only before the runtime's own, which ends the
// process).
func crashMessage(errOut string, err error) string {
	lines := strings.Split(errOut, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		line := lines[i]
		if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
			return shorten("crashed: " + strings.TrimSuffix(strings.TrimSpace(lines[i]), " [recovered, repanicked]"))
		}
	}
	if strings.Contains(errOut, "runtime: out of memory") || strings.Contains(errOut, "cannot allocate memory") {
		return "crashed: ran out of memory (the limit per test process is set by -memory)"
	}
	return shorten(fmt.Sprintf("the test process ended without a result (%v)", err))
}

// shorten keeps a message readable in a table.
func shorten(s string) string {
	s = strings.TrimSpace(strings.ToValidUTF8(s, "?"))
	const max = 600
	if len(s) > max {
		cut := max
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + " …"
	}
	return s
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// cappedBuffer keeps the first and the last outputLimit/2 bytes written to it.
type cappedBuffer struct {
	mu      sync.Mutex
	head    []byte
	tail    []byte // a ring once full
	next    int    // where the ring's next byte goes
	dropped int64
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	const half = outputLimit / 2
	n := len(p)
	if room := half - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		if len(c.tail) < half {
			k := min(half-len(c.tail), len(p))
			c.tail = append(c.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(c.tail[c.next:], p)
		c.dropped += int64(k)
		c.next = (c.next + k) % half
		p = p[k:]
	}
	return n, nil
}

func (c *cappedBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b bytes.Buffer
	b.Write(c.head)
	if c.dropped > 0 {
		fmt.Fprintf(&b, "\n[%d bytes of output left out]\n", c.dropped)
	}
	b.Write(c.tail[c.next:])
	b.Write(c.tail[:c.next])
	return b.String()
}
