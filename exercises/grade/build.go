package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// buildTimeout bounds the compilation of one exercise: a cold build cache
// compiles the standard library and the engine too.
const buildTimeout = 5 * time.Minute

// buildMemory bounds the data memory of each process of a compilation (the
// go command, the compiler, the linker): well above what the course's
// largest exercise, engine included, needs, and far below what a few lines
// declaring a huge initialised array would make the compiler take.
const buildMemory = 1 << 30

// buildFileSize bounds every file a compilation writes (objects in the
// build cache, the test binary).
const buildFileSize = 256 << 20

// compileLines is how much of the compiler's output a report keeps.
const compileLines = 12

// harnessFile is the test file the grader adds to every exercise it builds:
// its TestMain proves to the grader that the test ran to its end (see
// runTest). Tests, public or hidden, may not declare a TestMain of their
// own.
const harnessFile = "zz_grade_harness_test.go"

// harnessSource is harnessFile's text for an exercise's package. The
// token arrives on descriptor 4 and the verdict leaves on descriptor 3,
// neither of which graded code can reach: it may not import os or
// syscall, and the sandbox gives it nothing else. "started" says the
// package's initialisation finished, so a test that never got that far is
// told apart from one that was too slow.
func harnessSource(pkg string) string {
	return `package ` + pkg + `

import (
	"io"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	token := make([]byte, 32)
	in := os.NewFile(4, "token")
	_, err := io.ReadFull(in, token)
	in.Close()
	out := os.NewFile(3, "verdict")
	out.Write([]byte("started\n"))
	code := m.Run()
	if code == 0 && err == nil {
		out.Write(token)
	}
	out.Close()
	os.Exit(code)
}
`
}

// hiddenBuildMessage is what a learner is told when their code builds with
// the public tests but not with the instructor's: nothing of the hidden
// tests themselves (their paths, lines, names or values) is shown.
const hiddenBuildMessage = "your code compiles with the public tests but not with the instructor's tests: check that every function keeps the exact signature its stub gives"

// buildExercise compiles one exercise's test binary from the grader's own
// tests and the learner's files, without copying the learner's files into the
// grader's checkout: `go test -c -overlay` sees, in the exercise's folder, the
// learner's non-test files in place of the stubs, the checkout's test files,
// the grader's harness and the hidden tests. Every step runs in the sandbox.
// It returns the binary, or what the learner is told when their code does
// not build; err is for the grader's own failures. When the code builds
// with the public tests but not with the hidden ones, the binary has the
// public tests only, and hiddenErr says what the learner is told.
func buildExercise(ctx context.Context, b builder, scratch string, ex *Exercise, w Work, hidden []string) (binary, compileErr, hiddenErr string, err error) {
	src := filepath.Join(scratch, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", "", "", err
	}
	replace := map[string]string{}
	for _, stub := range ex.Stubs {
		replace[filepath.Join(ex.Dir, stub)] = "" // "" removes the file
	}
	for _, name := range slices.Sorted(maps.Keys(w.Files)) {
		copyPath := filepath.Join(src, name)
		if err := os.WriteFile(copyPath, w.Files[name], 0o644); err != nil {
			return "", "", "", err
		}
		replace[filepath.Join(ex.Dir, name)] = copyPath
	}
	harness := filepath.Join(scratch, harnessFile)
	if err := os.WriteFile(harness, []byte(harnessSource(ex.Package)), 0o644); err != nil {
		return "", "", "", err
	}
	replace[filepath.Join(ex.Dir, harnessFile)] = harness
	public := maps.Clone(replace)
	for _, h := range hidden {
		name := "zz_hidden_" + filepath.Base(h)
		if _, err := os.Lstat(filepath.Join(ex.Dir, name)); err == nil {
			return "", "", "", fmt.Errorf("hidden test %s: the exercise already has a file %s", h, name)
		}
		replace[filepath.Join(ex.Dir, name)] = h
	}
	overlay := func(name string, r map[string]string) (string, error) {
		data, err := json.Marshal(map[string]any{"Replace": r})
		if err != nil {
			return "", err
		}
		path := filepath.Join(scratch, name)
		return path, os.WriteFile(path, data, 0o644)
	}
	publicOverlay, err := overlay("overlay-public.json", public)
	if err != nil {
		return "", "", "", err
	}
	binary = filepath.Join(scratch, ex.Name+".test")

	// The compiler names the learner's files by their scratch copies: give
	// them back the names the learner knows.
	learnerPaths := strings.NewReplacer(src+string(filepath.Separator), "exercises/"+ex.Name+"/")
	pkg := "./exercises/" + ex.Name
	// First the learner's files alone, without any test file: code that
	// compiles only next to the tests would be reaching into the tests'
	// fixtures or answers.
	if msg, err := b.goCommand(ctx, scratch, "build", "-overlay", publicOverlay, pkg); msg != "" || err != nil {
		return "", learnerPaths.Replace(msg), "", err
	}
	testArgs := func(overlay string) []string {
		args := []string{"test", "-c", "-vet=off", "-o", binary, "-overlay", overlay}
		if b.race {
			args = append(args, "-race")
		}
		return append(args, pkg)
	}
	if len(hidden) == 0 {
		msg, err := b.goCommand(ctx, scratch, testArgs(publicOverlay)...)
		return orNot(binary, msg, err), learnerPaths.Replace(msg), "", err
	}
	// With hidden tests, a failure must not show them: the compiler's
	// messages are shown only if the public tests alone fail to build too.
	hiddenOverlay, err := overlay("overlay.json", replace)
	if err != nil {
		return "", "", "", err
	}
	msg, err := b.goCommand(ctx, scratch, testArgs(hiddenOverlay)...)
	if msg == "" || err != nil {
		return orNot(binary, msg, err), "", "", err
	}
	if pmsg, err := b.goCommand(ctx, scratch, testArgs(publicOverlay)...); pmsg != "" || err != nil {
		return "", learnerPaths.Replace(pmsg), "", err
	}
	// The public tests still run, and count.
	return binary, "", learnerLines(learnerPaths.Replace(msg), ex, w), nil
}

// orNot is binary when the build succeeded, else "".
func orNot(binary, msg string, err error) string {
	if msg != "" || err != nil {
		return ""
	}
	return binary
}

// learnerLines is hiddenBuildMessage, followed by the compiler's lines that
// are about the learner's own files, if any.
func learnerLines(msg string, ex *Exercise, w Work) string {
	lines := []string{hiddenBuildMessage}
	for _, line := range strings.Split(msg, "\n") {
		for name := range w.Files {
			if strings.HasPrefix(line, "exercises/"+ex.Name+"/"+name+":") {
				lines = append(lines, line)
			}
		}
	}
	return strings.Join(lines, "\n")
}

// builder runs the go command in the sandbox, on the grader's checkout.
type builder struct {
	sb                           *Sandbox
	root                         string // the grader's checkout
	hidden                       string // the hidden tests' folder, or ""
	cache                        string // the grader's own build cache
	race                         bool   // build with the race detector
	goBin, goroot, modcache, cgo string
}

// newBuilder finds the go command and its folders, and makes sure the
// modules the checkout needs are in the module cache: the sandbox has no
// network, so they are fetched first, outside it, for the grader's own
// go.mod (never a submission's).
func newBuilder(ctx context.Context, cfg Config) (builder, error) {
	b := builder{sb: cfg.Sandbox, root: cfg.Root, hidden: cfg.Hidden, cache: cfg.Cache, race: cfg.Race}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return b, errors.New("the go command is not on PATH")
	}
	b.goBin = goBin
	out, err := exec.CommandContext(ctx, goBin, "env", "GOROOT", "GOMODCACHE", "CGO_ENABLED").Output()
	if err != nil {
		return b, fmt.Errorf("go env: %w", err)
	}
	vals := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(vals) != 3 {
		return b, fmt.Errorf("go env printed %q", out)
	}
	b.goroot, b.modcache, b.cgo = vals[0], vals[1], vals[2]
	if b.goroot, err = filepath.EvalSymlinks(b.goroot); err != nil {
		return b, err
	}
	if b.cache == "" {
		return b, errors.New("no build cache folder given")
	}
	if err := os.MkdirAll(b.cache, 0o755); err != nil {
		return b, err
	}
	if err := os.MkdirAll(b.modcache, 0o755); err != nil {
		return b, err
	}
	dl := exec.CommandContext(ctx, goBin, "mod", "download")
	dl.Dir = cfg.Root
	dl.Env = append(os.Environ(), "GOFLAGS=", "GOTOOLCHAIN=local")
	if out, err := dl.CombinedOutput(); err != nil {
		return b, fmt.Errorf("go mod download in %s: %v: %s", cfg.Root, err, out)
	}
	return b, nil
}

// goCommand runs the go command on the checkout, in the sandbox, with
// scratch as its only writable folder besides the build cache, and returns
// the compiler's message if it failed on the code, or err if it could not
// run at all.
func (b builder) goCommand(ctx context.Context, scratch string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, buildTimeout)
	defer cancel()
	tmp := filepath.Join(scratch, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", err
	}
	j := jail{
		binds: []bind{
			{from: b.goroot}, {from: b.modcache}, {from: b.root},
			{from: scratch, write: true}, {from: b.cache, write: true},
		},
		dir: b.root,
		env: []string{
			"PATH=" + filepath.Join(b.goroot, "bin") + ":/usr/bin:/bin",
			"HOME=" + tmp, "TMPDIR=" + tmp, "GOROOT=" + b.goroot,
			"GOCACHE=" + b.cache, "GOMODCACHE=" + b.modcache, "GOPATH=" + filepath.Join(tmp, "gopath"),
			"GOFLAGS=-mod=readonly", "GOPROXY=off", "GOTOOLCHAIN=local", "GOTELEMETRY=off",
			"GOENV=off", "GOWORK=off", "GO111MODULE=on", "CGO_ENABLED=" + b.cgo,
		},
		lim: limits{data: buildMemory, cpu: int64(2 * buildTimeout / time.Second), fsize: buildFileSize, nofile: 4096},
	}
	if b.hidden != "" {
		j.binds = append(j.binds, bind{from: b.hidden})
	}
	cmd := b.sb.command(ctx, j, append([]string{filepath.Join(b.goroot, "bin", "go")}, args...)...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Sprintf("compiling took longer than %s", buildTimeout), nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if _, ok := err.(*exec.ExitError); !ok {
			return "", fmt.Errorf("running go %s: %w", args[0], err)
		}
		return compilerMessage(string(out), b.root, scratch), nil
	}
	return "", nil
}

// compilerMessage keeps the first lines of the compiler's output, with paths
// relative to the checkout, as the learner knows them.
func compilerMessage(out, root, scratch string) string {
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r ")
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "FAIL") {
			continue
		}
		line = strings.ReplaceAll(line, root+string(filepath.Separator), "")
		line = strings.ReplaceAll(line, scratch+string(filepath.Separator), "")
		if strings.Contains(line, "signal: killed") || strings.Contains(line, "cannot allocate memory") ||
			strings.Contains(line, "out of memory") || strings.Contains(line, "file too large") {
			return fmt.Sprintf("compiling took more than the limits allow (%d MiB of memory a process, files of %d MiB): %s", buildMemory>>20, buildFileSize>>20, line)
		}
		lines = append(lines, line)
		if len(lines) == compileLines {
			break
		}
	}
	if len(lines) == 0 {
		return "did not compile"
	}
	return strings.Join(lines, "\n")
}

// prepareRunDir makes the folder the tests run in: a copy of the exercise's
// testdata (regular files only), nothing else.
func prepareRunDir(scratch string, ex *Exercise) (string, error) {
	run := filepath.Join(scratch, "run")
	if err := os.MkdirAll(run, 0o755); err != nil {
		return "", err
	}
	from := filepath.Join(ex.Dir, "testdata")
	if _, err := os.Stat(from); err != nil {
		return run, nil
	}
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(ex.Dir, path)
		to := filepath.Join(run, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(to, data, 0o644)
		}
		return nil
	})
	return run, err
}
