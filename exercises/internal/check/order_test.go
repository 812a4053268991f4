package check

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// taskLine is the line of a test's doc comment that says its task.
var taskLine = regexp.MustCompile(`^//grade:task ([0-9]+) `)

// TestTestsRunInTaskOrder: go test runs an exercise's tests file by file,
// in the order of the files' names, and each file's tests in the order they
// are written. A learner reads the failures from the top, so the tests of
// task 1 must run first, then those of task 2, and so on, the quiz last:
// the test files are named after the first task they test, taskN_…_test.go.
func TestTestsRunInTaskOrder(t *testing.T) {
	root := repoRoot(t)
	dirs, err := filepath.Glob(filepath.Join(root, "exercises", "[0-9][0-9]-*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no exercises/NN-* under %s (%v)", root, err)
	}
exercises:
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*_test.go")) // sorted, as go test takes them
		if err != nil {
			t.Fatal(err)
		}
		lastTask, lastTest := 0, ""
		for _, path := range files {
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Doc == nil {
					continue
				}
				task := 0
				for _, c := range fn.Doc.List {
					if m := taskLine.FindStringSubmatch(c.Text); m != nil {
						task, _ = strconv.Atoi(m[1])
					}
				}
				name := filepath.Base(path) + ": " + fn.Name.Name
				if task < lastTask {
					t.Errorf("exercises/%s: %s (task %d) runs after %s (task %d); go test runs the files in the order of their names: name them after the first task they test, taskN_…_test.go",
						filepath.Base(dir), name, task, lastTest, lastTask)
					continue exercises // the first test out of order says it
				}
				if task > lastTask {
					lastTask, lastTest = task, name
				}
			}
		}
		if lastTask == 0 {
			t.Errorf("exercises/%s: no test declares a task (//grade:task N …)", filepath.Base(dir))
		}
	}
}
