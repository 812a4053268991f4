package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// allowedImports are the packages graded code may import: the standard
// library's pure packages. Nothing here reaches files, the process, the
// network or memory outside Go's rules, so a submission cannot touch the
// grader, its reports or other submissions, end the test process itself, or
// read the hidden tests.
var allowedImports = []string{
	"bufio", "bytes", "cmp", "container/heap", "container/list", "container/ring",
	"context", "errors", "fmt", "hash/fnv", "iter", "maps", "math", "math/big",
	"math/bits", "math/rand", "math/rand/v2", "slices", "sort", "strconv", "strings",
	"sync", "sync/atomic", "time", "unicode", "unicode/utf16", "unicode/utf8",
}

// Limits on what is read from a submission.
const (
	maxFileBytes  = 1 << 20 // one source file
	maxTotalBytes = 4 << 20 // all of one exercise's files
	maxFiles      = 64      // source files in one exercise

	maxSubmissionBytes = 16 << 20 // all the exercises' files of one submission
)

// Work is what a submission hands in for one exercise: its non-test .go
// files, read into memory, or the reason nothing can be graded.
type Work struct {
	Files   map[string][]byte // file name → contents
	Missing string            // why the exercise is missing, if it is
	Refused string            // why the files cannot be built, if so
	Notes   []string          // files passed over, and why
}

// submissionExercises resolves a submission folder: a copy of the whole
// repository (with an exercises/ folder) or just its exercises/ folder.
func submissionExercises(dir string) (string, error) {
	info, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("submission: %w", err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("submission %s is not a folder", dir)
	}
	sub := filepath.Join(dir, "exercises")
	if info, err := os.Lstat(sub); err == nil {
		if info.Mode()&os.ModeSymlink != 0 {
			return "", fmt.Errorf("submission %s: exercises is a symbolic link; a submission must hold its own files", dir)
		}
		if info.IsDir() {
			return sub, nil
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("submission: %w", err)
	}
	for _, e := range entries {
		if exerciseName.MatchString(e.Name()) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("submission %s has neither an exercises/ folder nor exercise folders (such as 02-softmax)", dir)
}

// readWork reads the learner's files for one exercise from the submission's
// exercises folder. Only regular, non-test .go files directly in the
// exercise's folder count; symbolic links and oversized files are passed over
// with a note.
func readWork(exercisesDir string, ex *Exercise) Work {
	w := Work{Files: map[string][]byte{}}
	dir := filepath.Join(exercisesDir, ex.Name)
	info, err := os.Lstat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		w.Missing = fmt.Sprintf("the submission has no exercises/%s folder", ex.Name)
		return w
	case err != nil:
		w.Missing = fmt.Sprintf("cannot read exercises/%s: %v", ex.Name, err)
		return w
	case info.Mode()&os.ModeSymlink != 0:
		w.Missing = fmt.Sprintf("exercises/%s is a symbolic link; a submission must hold its own files", ex.Name)
		return w
	case !info.IsDir():
		w.Missing = fmt.Sprintf("exercises/%s is not a folder", ex.Name)
		return w
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		w.Missing = fmt.Sprintf("cannot read exercises/%s: %v", ex.Name, err)
		return w
	}
	total := 0
	for _, e := range entries {
		name := e.Name()
		if why := refusedName(name); why != "" {
			w.Refused = fmt.Sprintf("exercises/%s/%s", ex.Name, why)
			return w
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") ||
			strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			continue
		}
		if slices.Contains(ex.Given, name) {
			continue // the course's own copy is built (see Exercise.Given)
		}
		if len(w.Files) == maxFiles {
			w.Notes = append(w.Notes, fmt.Sprintf("more than %d .go files: the rest are not graded", maxFiles))
			break
		}
		data, err := readRegular(filepath.Join(dir, name), maxFileBytes)
		if err != nil {
			w.Notes = append(w.Notes, fmt.Sprintf("%q not graded: %v", name, err))
			continue
		}
		total += len(data)
		if total > maxTotalBytes {
			w.Notes = append(w.Notes, fmt.Sprintf("%q not graded: the exercise's files pass %d MiB", name, maxTotalBytes>>20))
			continue
		}
		w.Files[name] = data
	}
	if len(w.Files) == 0 {
		w.Missing = fmt.Sprintf("exercises/%s has no .go files to grade", ex.Name)
		return w
	}
	w.Refused = checkSource(ex.Name, w.Files)
	return w
}

// readRegular reads a regular file that is not a symbolic link, up to limit
// bytes, checking that what was opened is what was inspected.
func readRegular(path string, limit int64) ([]byte, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if before.Mode()&os.ModeSymlink != 0 {
		return nil, errors.New("it is a symbolic link")
	}
	if !before.Mode().IsRegular() {
		return nil, errors.New("it is not a regular file")
	}
	if before.Size() > limit {
		return nil, fmt.Errorf("it has %d bytes, over the limit of %d", before.Size(), limit)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	after, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !os.SameFile(before, after) {
		return nil, errors.New("it changed while it was read")
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("it has more than %d bytes", limit)
	}
	return data, nil
}

// buildFiles are the endings of the files, besides Go's, that the go
// command would build into a package: cgo's C, C++, Objective-C and
// Fortran sources and headers, assembly, SWIG, and linked objects.
var buildFiles = []string{".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".m",
	".f", ".F", ".for", ".f90", ".s", ".S", ".sx", ".swig", ".swigcxx", ".syso"}

// refusedName says why a name in an exercise folder cannot be graded, or
// "". A name the grader may show must be plain text: a newline or another
// control character in it would start a line of a report, so names with
// characters that do not print are refused, quoted. A Go file may not
// select a build by its name (demo_linux.go, demo_amd64.go: the grader
// builds graded code as it is, never for some builds only), and no file
// of another language may sit beside it: the go command would build it
// into the package, as assembly or cgo.
func refusedName(name string) string {
	if !printable(name) {
		return fmt.Sprintf("%q: a name with characters that do not print (a newline, a control character); rename it", name)
	}
	if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return "" // the go command passes these over
	}
	if ext := filepath.Ext(name); slices.Contains(buildFiles, ext) {
		return fmt.Sprintf("%s: a %s file beside graded code would be built into it (assembly, cgo or a linked object); graded code is Go alone: remove it", name, ext)
	}
	if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") && !anyBuild.MatchFile(name) {
		return fmt.Sprintf("%s: the name selects the builds it is part of (a _GOOS or _GOARCH suffix); graded code is built as it is: rename it", name)
	}
	return ""
}

// printable reports whether every character of s is valid UTF-8 that
// prints: letters, marks, numbers, punctuation, symbols and the ASCII
// space.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// anyBuild tells apart the file names that every build takes: a build
// context for an operating system and an architecture that do not exist
// takes no file whose name names one (x_linux.go, x_arm64.go), and every
// other.
var anyBuild = fileMatcher{build.Context{GOOS: "none", GOARCH: "none", Compiler: "gc"}}

type fileMatcher struct{ ctx build.Context }

// MatchFile reports whether the file name alone lets the context build
// the file: the file's text is a bare package clause.
func (m fileMatcher) MatchFile(name string) bool {
	ctx := m.ctx
	ctx.JoinPath = path.Join
	ctx.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("package p\n")), nil }
	ok, err := ctx.MatchFile("/", name)
	return err == nil && ok
}

// checkSource returns why the files cannot be graded, or "". Every file
// must parse (a file the grader cannot read is not built), and:
//   - every import must be in allowedImports;
//   - no goroutines: no go statement, and no time.AfterFunc or
//     context.AfterFunc, which run a function on a goroutine of its own. No
//     exercise needs them, and Go's memory safety holds only for programs
//     without data races, which need two goroutines;
//   - no //go: or //line directives: they change how the compiler and the
//     runtime treat the code (//go:debug, //go:linkname) or what its errors
//     and stack traces say about where they come from;
//   - no build constraints, in either form (//go:build, // +build): a file
//     that some builds take and others leave out could be built with the
//     tests and not without them (see buildExercise), and graded code is
//     built as it is.
//
// Each refusal names the file and line.
func checkSource(exercise string, files map[string][]byte) string {
	fset := token.NewFileSet()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		where := func(pos token.Pos) string {
			return fmt.Sprintf("exercises/%s/%s:%d", exercise, name, fset.Position(pos).Line)
		}
		f, err := parser.ParseFile(fset, "exercises/"+exercise+"/"+name, files[name], parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return fmt.Sprintf("does not parse: %v", err)
		}
		pkgNames := map[string]string{} // the name a file uses for a package → its path
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil || !slices.Contains(allowedImports, path) {
				return fmt.Sprintf("exercises/%s/%s imports %s, which graded code may not use (allowed: %s)",
					exercise, name, imp.Path.Value, strings.Join(allowedImports, " "))
			}
			local := path[strings.LastIndex(path, "/")+1:]
			if imp.Name != nil {
				if imp.Name.Name == "." {
					return fmt.Sprintf("%s: graded code may not dot-import a package (import %s by its name)", where(imp.Pos()), imp.Path.Value)
				}
				local = imp.Name.Name
			}
			pkgNames[local] = path
		}
		for _, group := range f.Comments {
			for _, c := range group.List {
				if isBuildConstraint(c.Text) {
					return fmt.Sprintf("%s: the build constraint %q is not allowed in graded code: it is built as it is, for every build", where(c.Pos()), clip(c.Text, 40))
				}
				if strings.HasPrefix(c.Text, "//go:") || strings.HasPrefix(c.Text, "//line ") || strings.HasPrefix(c.Text, "/*line ") {
					directive, _, _ := strings.Cut(c.Text, " ")
					return fmt.Sprintf("%s: the directive %s is not allowed in graded code (no compiler or runtime directives)", where(c.Pos()), clip(directive, 40))
				}
			}
		}
		var refusal string
		ast.Inspect(f, func(n ast.Node) bool {
			if refusal != "" {
				return false
			}
			switch n := n.(type) {
			case *ast.GoStmt:
				refusal = fmt.Sprintf("%s: a go statement starts a goroutine, which graded code may not do", where(n.Pos()))
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && n.Sel.Name == "AfterFunc" {
					if path := pkgNames[id.Name]; path == "time" || path == "context" {
						refusal = fmt.Sprintf("%s: %s.AfterFunc runs a function on a goroutine of its own, which graded code may not do", where(n.Pos()), path)
					}
				}
			}
			return true
		})
		if refusal != "" {
			return refusal
		}
	}
	return ""
}

// isBuildConstraint reports whether a comment is a build constraint in
// either form: //go:build, or the older // +build that the go command
// still obeys before the package clause ("//+build" and "//\t+build"
// too). It is refused wherever it stands.
func isBuildConstraint(comment string) bool {
	text, ok := strings.CutPrefix(comment, "//")
	if !ok {
		return false
	}
	if strings.HasPrefix(text, "go:build") {
		return true
	}
	return strings.HasPrefix(strings.TrimLeft(text, " \t"), "+build")
}
