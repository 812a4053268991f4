package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A learner's code is untrusted: the grader compiles it and runs it only
// inside an operating-system sandbox, bubblewrap (bwrap), which most Linux
// distributions package and Flatpak itself uses. Each process gets its own
// namespaces for users, processes, the network, IPC and the host name: no
// network at all, no process it can see or outlive, and a file system that
// holds only what it is given — read-only system files, its own binary,
// its own scratch folder. Inside, prlimit sets the resource limits (data
// memory, CPU seconds, file size, open files, processes) before the
// learner's binary starts, so they hold from its first instruction.
//
// The sandbox is the last wall, not the only one: the grader also refuses
// source that could break Go's own rules (see checkSource), proves every
// pass with a token graded code cannot reach (see runTest), and keeps the
// hidden tests out of every report.

// nobody is the user and group test processes run as when the grader runs
// as root: an unprivileged user that owns nothing.
const nobody = 65534

// Sandbox starts the processes that compile and run learner code. A nil
// *Sandbox runs them without one (the instructor's explicit -no-sandbox),
// with the resource limits only.
type Sandbox struct {
	bwrap   string
	prlimit string
	// asUser is the unprivileged user test processes run as, when the
	// grader runs as root; nil otherwise (they run as the grader's user,
	// in a user namespace of their own).
	asUser *syscall.Credential
}

// installHint says what to install for the sandbox, and what to do on
// systems that restrict user namespaces.
const installHint = `the grader runs learner code only inside bubblewrap: install it (Debian and Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install bubblewrap), or pass -no-sandbox to grade without one (only for code you trust). On Ubuntu 23.10 and later, AppArmor keeps unprivileged programs from making user namespaces: allow it with sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (see exercises/README.md, Grading a class)`

// NewSandbox finds bubblewrap and prlimit and checks that a sandbox can
// really be made here, by starting one.
func NewSandbox() (*Sandbox, error) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, fmt.Errorf("no sandbox: bwrap is not installed; %s", installHint)
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		return nil, errors.New("no sandbox: prlimit (util-linux) is not installed; the grader sets its limits with it")
	}
	sb := &Sandbox{bwrap: bwrap, prlimit: prlimit}
	if os.Geteuid() == 0 {
		sb.asUser = &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := sb.command(ctx, jail{user: sb.asUser, dir: "/"}, "/bin/true")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("no sandbox: bwrap could not start one (%v: %s); %s", err, strings.TrimSpace(string(out)), installHint)
	}
	return sb, nil
}

// limits are the resource limits of one sandboxed process (0: not set).
type limits struct {
	data   int64 // bytes of data memory (heap and other private mappings)
	cpu    int64 // CPU seconds, all threads together
	fsize  int64 // bytes of the largest file it may write
	nofile int64 // open files
	nproc  int64 // processes and threads of its user
}

// bind is a path made visible inside the sandbox, at the same path or at
// another.
type bind struct {
	from, to string
	write    bool
}

// jail is what one sandboxed process sees and may do.
type jail struct {
	binds []bind
	dir   string   // its working folder, a path inside the sandbox
	env   []string // its whole environment
	lim   limits
	user  *syscall.Credential // run as this user; nil: the grader's
}

// systemPaths are the read-only system files every process needs: the
// shared libraries a race-detector binary and prlimit load, and /usr/bin
// for the go command's tools. On merged-/usr systems /bin, /lib and
// /lib64 are links into /usr, and are made so inside too.
var systemPaths = []string{"/usr", "/bin", "/lib", "/lib64", "/etc/alternatives"}

// command makes the command that runs argv in the jail. Without a sandbox
// it runs argv directly, with the same limits, folder and environment.
func (s *Sandbox) command(ctx context.Context, j jail, argv ...string) *exec.Cmd {
	prlimit := "prlimit"
	if s != nil {
		prlimit = s.prlimit
	}
	inner := []string{prlimit}
	for _, l := range []struct {
		flag string
		v    int64
	}{{"--data", j.lim.data}, {"--cpu", j.lim.cpu}, {"--fsize", j.lim.fsize}, {"--nofile", j.lim.nofile}, {"--nproc", j.lim.nproc}} {
		if l.v > 0 {
			inner = append(inner, l.flag+"="+strconv.FormatInt(l.v, 10))
		}
	}
	inner = append(append(inner, "--"), argv...)

	var cmd *exec.Cmd
	if s == nil {
		cmd = exec.CommandContext(ctx, inner[0], inner[1:]...)
		cmd.Dir = j.dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	} else {
		args := []string{
			"--unshare-all", // users, processes, network, IPC, host name, cgroups
			"--die-with-parent",
			"--new-session", // no terminal to push input into
			"--cap-drop", "ALL",
			"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
			"--clearenv",
		}
		for _, p := range systemPaths {
			if target, err := os.Readlink(p); err == nil && !filepath.IsAbs(target) {
				args = append(args, "--symlink", target, p)
				continue
			}
			args = append(args, "--ro-bind-try", p, p)
		}
		for _, b := range j.binds {
			to := b.to
			if to == "" {
				to = b.from
			}
			if b.write {
				args = append(args, "--bind", b.from, to)
			} else {
				args = append(args, "--ro-bind", b.from, to)
			}
		}
		if j.user != nil {
			args = append(args, "--uid", strconv.Itoa(int(j.user.Uid)), "--gid", strconv.Itoa(int(j.user.Gid)))
		}
		for _, kv := range j.env {
			k, v, _ := strings.Cut(kv, "=")
			args = append(args, "--setenv", k, v)
		}
		args = append(args, "--chdir", j.dir, "--")
		cmd = exec.CommandContext(ctx, s.bwrap, append(args, inner...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: j.user}
	}
	cmd.Env = j.env
	if s != nil {
		cmd.Env = []string{"PATH=/usr/bin:/bin"} // bwrap's own; the jail's is set by --setenv
	}
	// Cancelling kills the whole process group: bwrap, and with it
	// (--die-with-parent) the sandbox's first process, whose end ends
	// every process of its namespace.
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// sandboxNote is the line every report starts with when learner code ran
// without a sandbox.
const sandboxNote = "WARNING: graded with -no-sandbox: learner code ran without an operating-system sandbox, so these grades hold only if every submission was trusted"
