package main

import (
	"bufio"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// modulePath is the course's Go module: the grader grades the exercises of
// the checkout it runs in, found by walking up to this module's go.mod.
const modulePath = "github.com/tokenbytoken/course"

// exerciseName is the form of an exercise folder: two digits, a dash, a name.
var exerciseName = regexp.MustCompile(`^[0-9]{2}-[a-z0-9]+(-[a-z0-9]+)*$`)

// directive declares a test's task and points, as the last line of the test
// function's doc comment: //grade:task 2 points 3. A self-check
// (//grade:task 5 selfcheck) gives feedback and no points: a public quiz,
// whose answers anyone who reads the repository can work out.
var directive = regexp.MustCompile(`^//grade:task ([1-9][0-9]?) (?:points ([1-9][0-9]?)|(selfcheck))$`)

// Exercise is one folder of the grader's own track: its tests and the names
// of the files a learner edits.
type Exercise struct {
	Name    string // folder name, e.g. "02-softmax"
	Dir     string // absolute path in the grader's checkout
	Package string // Go package name
	Stubs   []string
	// Given are the files among the stubs that the course gives and the
	// learner does not edit (marked //grade:given): the grader builds its
	// own copy, whatever the submission holds, so that what the tests
	// rely on in them (a meter of work done, say) is the course's.
	Given []string
	Tests []Test // public tests, then hidden ones, each in declaration order
}

// Test is one top-level test function and what it is worth.
type Test struct {
	Exercise string
	Name     string
	Task     int
	Points   int
	Hidden   bool
	// SelfCheck marks a test that gives feedback and no points.
	SelfCheck bool
}

// findRoot walks up from dir to the checkout of the course module.
func findRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if moduleOf(filepath.Join(d, "go.mod")) == modulePath {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no checkout of %s at or above %s: run the grader from the course repository", modulePath, dir)
		}
	}
}

// moduleOf returns the module path a go.mod declares, or "".
func moduleOf(gomod string) string {
	f, err := os.Open(gomod)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// loadTrack reads the exercises of the checkout at root: every folder
// exercises/NN-name, or those the command line names (by folder name or by
// number: "02-softmax" or "02"), with their stubs and their tests' tasks and
// points.
func loadTrack(root string, names []string) ([]*Exercise, error) {
	entries, err := os.ReadDir(filepath.Join(root, "exercises"))
	if err != nil {
		return nil, fmt.Errorf("reading the track: %w", err)
	}
	var all []string
	for _, e := range entries {
		if e.IsDir() && exerciseName.MatchString(e.Name()) {
			all = append(all, e.Name())
		}
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no exercises in %s", filepath.Join(root, "exercises"))
	}
	chosen := all
	if len(names) > 0 {
		chosen = nil
		for _, name := range names {
			i := slices.IndexFunc(all, func(ex string) bool { return ex == name || strings.HasPrefix(ex, name+"-") })
			if i < 0 {
				return nil, usageError{fmt.Sprintf("no exercise %q; the exercises are %s", name, strings.Join(all, ", "))}
			}
			if !slices.Contains(chosen, all[i]) {
				chosen = append(chosen, all[i])
			}
		}
	}
	var track []*Exercise
	for _, name := range chosen {
		ex, err := loadExercise(filepath.Join(root, "exercises", name))
		if err != nil {
			return nil, err
		}
		track = append(track, ex)
	}
	return track, nil
}

// loadExercise reads one exercise folder of the grader's checkout.
func loadExercise(dir string) (*Exercise, error) {
	ex := &Exercise{Name: filepath.Base(dir), Dir: dir}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") {
			continue
		}
		if !strings.HasSuffix(name, "_test.go") {
			ex.Stubs = append(ex.Stubs, name)
			given, err := isGiven(filepath.Join(dir, name))
			if err != nil {
				return nil, err
			}
			if given {
				ex.Given = append(ex.Given, name)
			}
			continue
		}
		tests, pkg, err := parseTests(filepath.Join(dir, name), ex.Name, false)
		if err != nil {
			return nil, err
		}
		if ex.Package == "" {
			ex.Package = pkg
		}
		ex.Tests = append(ex.Tests, tests...)
	}
	if len(ex.Tests) == 0 {
		return nil, fmt.Errorf("exercise %s has no tests", ex.Name)
	}
	if err := checkTasks(ex.Name, ex.Tests); err != nil {
		return nil, err
	}
	slices.SortStableFunc(ex.Tests, func(a, b Test) int { return a.Task - b.Task })
	return ex, nil
}

// addHidden adds the instructor's hidden tests for ex from hiddenDir/<name>/,
// if that folder exists; they must declare tasks and points like the public
// tests and may not reuse a public test's name.
func (ex *Exercise) addHidden(hiddenDir string) ([]string, error) {
	dir := filepath.Join(hiddenDir, ex.Name)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("hidden tests: %w", err)
	}
	var files []string
	seen := map[string]bool{}
	for _, t := range ex.Tests {
		seen[t.Name] = true
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		tests, pkg, err := parseTests(path, ex.Name, true)
		if err != nil {
			return nil, err
		}
		if pkg != ex.Package && pkg != ex.Package+"_test" {
			return nil, fmt.Errorf("hidden test %s is package %s; want %s, the exercise's package", path, pkg, ex.Package)
		}
		for _, t := range tests {
			if seen[t.Name] {
				return nil, fmt.Errorf("hidden test %s declares %s, which the exercise's tests already have", path, t.Name)
			}
			seen[t.Name] = true
		}
		slices.SortStableFunc(tests, func(a, b Test) int { return a.Task - b.Task })
		ex.Tests = append(ex.Tests, tests...)
		files = append(files, path)
	}
	return files, nil
}

// parseTests lists the top-level test functions of one test file, with the
// task and points each declares.
func parseTests(path, exercise string, hidden bool) ([]Test, string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		return nil, "", fmt.Errorf("reading tests: %w", err)
	}
	var tests []Test
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if ok && fn.Recv == nil && fn.Name.Name == "TestMain" {
			return nil, "", fmt.Errorf("%s: tests may not declare TestMain: the grader runs its own", fset.Position(fn.Pos()))
		}
		if !ok || fn.Recv != nil || !isTestFunc(fn) {
			continue
		}
		t := Test{Exercise: exercise, Name: fn.Name.Name, Hidden: hidden}
		if fn.Doc != nil {
			for _, c := range fn.Doc.List {
				if m := directive.FindStringSubmatch(strings.TrimSpace(c.Text)); m != nil {
					t.Task, _ = strconv.Atoi(m[1])
					t.Points, _ = strconv.Atoi(m[2])
					t.SelfCheck = m[3] != ""
				}
			}
		}
		if t.Task == 0 {
			return nil, "", fmt.Errorf("%s: %s declares no task and points: end its doc comment with a line such as //grade:task 1 points 2 (or //grade:task 5 selfcheck)",
				fset.Position(fn.Pos()), t.Name)
		}
		tests = append(tests, t)
	}
	return tests, f.Name.Name, nil
}

// isTestFunc reports whether fn is a test go test runs: TestXxx(t *testing.T).
func isTestFunc(fn *ast.FuncDecl) bool {
	name := fn.Name.Name
	if !strings.HasPrefix(name, "Test") || name == "TestMain" {
		return false
	}
	if rest := name[len("Test"):]; rest != "" && rest[0] >= 'a' && rest[0] <= 'z' {
		return false
	}
	params := fn.Type.Params.List
	if len(params) != 1 || fn.Type.Results != nil {
		return false
	}
	star, ok := params[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "T"
}

// checkTasks requires the public tests' tasks to be numbered 1..K with no gap.
func checkTasks(exercise string, tests []Test) error {
	var tasks []int
	for _, t := range tests {
		if !slices.Contains(tasks, t.Task) {
			tasks = append(tasks, t.Task)
		}
	}
	slices.Sort(tasks)
	for i, task := range tasks {
		if task != i+1 {
			return fmt.Errorf("exercise %s: tasks are %v; want them numbered 1 to %d with none missing", exercise, tasks, len(tasks))
		}
	}
	return nil
}

// givenDirective marks a file of an exercise that the course gives, as a
// line of its own before the package clause.
const givenDirective = "//grade:given"

// isGiven reports whether the Go file at path carries givenDirective
// before its package clause.
func isGiven(path string) (bool, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		return false, fmt.Errorf("reading the track: %w", err)
	}
	for _, group := range f.Comments {
		if group.Pos() > f.Package {
			break
		}
		for _, c := range group.List {
			if strings.TrimSpace(c.Text) == givenDirective {
				return true, nil
			}
		}
	}
	return false, nil
}
