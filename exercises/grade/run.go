package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Statuses of a graded test.
const (
	StatusPass    = "pass"
	StatusFail    = "fail"
	StatusError   = "error"   // did not compile, or crashed outside the test's own checks
	StatusTimeout = "timeout" // ran past its time limit
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
}

// Limits bound every test process.
type Limits struct {
	Timeout time.Duration // per test
	Memory  int64         // bytes of data memory per test process; 0: no limit
}

// runTest runs one test of a built exercise in a process of its own, in dir,
// and grades it by how the process ended: a test passes only if the test
// binary, asked to run just that test, exits with status 0. Graded code can
// neither end the process itself nor reach files or descriptors (see
// allowedImports), so what it prints cannot change the verdict; the output
// only supplies the failure message.
func runTest(ctx context.Context, binary, dir string, t Test, lim Limits) Result {
	r := Result{Test: t}
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout+5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary,
		"-test.run=^"+regexp.QuoteMeta(t.Name)+"$",
		"-test.count=1",
		"-test.v",
		"-test.timeout="+lim.Timeout.String())
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + dir, "GOTRACEBACK=single"}
	var out cappedBuffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 2 * time.Second

	if err := cmd.Start(); err != nil {
		r.Status, r.Message = StatusError, fmt.Sprintf("could not start the test: %v", err)
		return r
	}
	limitMemory(cmd.Process.Pid, lim.Memory)
	start := time.Now()
	err := cmd.Wait()
	r.Duration = time.Since(start)
	text := out.String()
	r.output = text
	switch {
	case err == nil:
		r.Status, r.Earned = StatusPass, t.Points
	case ctx.Err() != nil || strings.Contains(text, "panic: test timed out after"):
		r.Status = StatusTimeout
		r.Message = fmt.Sprintf("still running after %s: an endless loop, or far too slow", lim.Timeout)
	case cmd.ProcessState.ExitCode() == 1 && !strings.Contains(text, "\npanic: "):
		// A test binary exits with 1 when a test failed; a crash exits
		// with 2 or by a signal.
		r.Status, r.Message = StatusFail, failureMessage(text, t.Name)
	case strings.Contains(text, "--- FAIL: "+t.Name+" ") && strings.Contains(text, "\npanic: "):
		// The test itself panicked: the testing package reports the test
		// failed, then crashes.
		r.Status, r.Message = StatusFail, crashMessage(text, err)
	default:
		r.Status, r.Message = StatusError, crashMessage(text, err)
	}
	return r
}

// killGroup ends the test process and anything it started.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// fileLine starts a message that t.Error and friends print: "x_test.go:12: ".
var fileLine = regexp.MustCompile(`^\s+[\w.-]+\.go:\d+: `)

// failureMessage is the first message a failed test printed, without its
// file and line (so a hidden test shows what it says, not where). Tests run
// verbosely, so messages follow the test's "=== RUN" line as they are made.
func failureMessage(out, name string) string {
	lines := strings.Split(out, "\n")
	start := 0
	for i, line := range lines {
		if strings.TrimSpace(line) == "=== RUN   "+name || strings.HasPrefix(line, "--- FAIL: "+name+" ") {
			start = i + 1
			break
		}
	}
	for i := start; i < len(lines); i++ {
		loc := fileLine.FindStringIndex(lines[i])
		if loc == nil {
			continue
		}
		indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " \t"))
		msg := []string{lines[i][loc[1]:]}
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

// crashMessage says why a test process ended without a verdict of its own.
func crashMessage(out string, err error) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
			return shorten("crashed: " + strings.TrimSuffix(line, " [recovered, repanicked]"))
		}
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
