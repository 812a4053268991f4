package main

import (
	"context"
	"encoding/json"
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

// compileLines is how much of the compiler's output a report keeps.
const compileLines = 12

// buildExercise compiles one exercise's test binary from the grader's own
// tests and the learner's files, without copying the learner's files into the
// grader's checkout: `go test -c -overlay` sees, in the exercise's folder, the
// learner's non-test files in place of the stubs, the checkout's test files,
// and the hidden tests. It returns the binary, or the compiler's first lines
// when the learner's code does not build; err is for the grader's own
// failures.
func buildExercise(ctx context.Context, root, scratch string, ex *Exercise, w Work, hidden []string) (binary, compileErr string, err error) {
	src := filepath.Join(scratch, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", "", err
	}
	replace := map[string]string{}
	for _, stub := range ex.Stubs {
		replace[filepath.Join(ex.Dir, stub)] = "" // "" removes the file
	}
	for _, name := range slices.Sorted(maps.Keys(w.Files)) {
		copyPath := filepath.Join(src, name)
		if err := os.WriteFile(copyPath, w.Files[name], 0o644); err != nil {
			return "", "", err
		}
		replace[filepath.Join(ex.Dir, name)] = copyPath
	}
	for _, h := range hidden {
		name := "zz_hidden_" + filepath.Base(h)
		if _, err := os.Lstat(filepath.Join(ex.Dir, name)); err == nil {
			return "", "", fmt.Errorf("hidden test %s: the exercise already has a file %s", h, name)
		}
		replace[filepath.Join(ex.Dir, name)] = h
	}
	overlay, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", "", err
	}
	overlayPath := filepath.Join(scratch, "overlay.json")
	if err := os.WriteFile(overlayPath, overlay, 0o644); err != nil {
		return "", "", err
	}
	binary = filepath.Join(scratch, ex.Name+".test")

	// First the learner's files alone, without any test file: code that
	// compiles only next to the tests would be reaching into the tests'
	// fixtures or answers.
	pkg := "./exercises/" + ex.Name
	// The compiler names the learner's files by their scratch copies: give
	// them back the names the learner knows.
	learnerPaths := strings.NewReplacer(src+string(filepath.Separator), "exercises/"+ex.Name+"/")
	if msg, err := goCommand(ctx, root, "build", "-overlay", overlayPath, pkg); msg != "" || err != nil {
		return "", learnerPaths.Replace(msg), err
	}
	msg, err := goCommand(ctx, root, "test", "-c", "-vet=off", "-o", binary, "-overlay", overlayPath, pkg)
	if msg != "" || err != nil {
		return "", learnerPaths.Replace(msg), err
	}
	return binary, "", nil
}

// goCommand runs the go command in root and returns the compiler's message if
// it failed on the code, or err if it could not run at all.
func goCommand(ctx context.Context, root string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Sprintf("compiling took longer than %s", buildTimeout), nil
	}
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			return "", fmt.Errorf("running go %s: %w", args[0], err)
		}
		return compilerMessage(string(out), root), nil
	}
	return "", nil
}

// compilerMessage keeps the first lines of the compiler's output, with paths
// relative to the checkout, as the learner knows them.
func compilerMessage(out, root string) string {
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r ")
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "FAIL") {
			continue
		}
		line = strings.ReplaceAll(line, root+string(filepath.Separator), "")
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
