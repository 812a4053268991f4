package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") ||
			strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			continue
		}
		if len(w.Files) == maxFiles {
			w.Notes = append(w.Notes, fmt.Sprintf("more than %d .go files: the rest are not graded", maxFiles))
			break
		}
		data, err := readRegular(filepath.Join(dir, name), maxFileBytes)
		if err != nil {
			w.Notes = append(w.Notes, fmt.Sprintf("%s not graded: %v", name, err))
			continue
		}
		total += len(data)
		if total > maxTotalBytes {
			w.Notes = append(w.Notes, fmt.Sprintf("%s not graded: the exercise's files pass %d MiB", name, maxTotalBytes>>20))
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

// checkSource returns why the files cannot be graded, or "". Every file
// must parse (a file the grader cannot read is not built), and:
//   - every import must be in allowedImports;
//   - no goroutines: no go statement, and no time.AfterFunc or
//     context.AfterFunc, which run a function on a goroutine of its own. No
//     exercise needs them, and Go's memory safety holds only for programs
//     without data races, which need two goroutines;
//   - no //go: or //line directives: they change how the compiler and the
//     runtime treat the code (//go:debug, //go:linkname) or what its errors
//     and stack traces say about where they come from.
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
