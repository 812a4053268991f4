package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The grader's own tests run it on a small track built here: a module with
// two exercises, their stubs and tests, and submissions written by the tests
// — honest, unfinished and hostile.

const demoStub = `// Package demo is a tiny exercise for the grader's tests.
package demo

// Add returns a + b. Task 1.
func Add(a, b int) int { return 0 }

// Double returns 2x. Task 2.
func Double(x int) int { return 0 }
`

const demoSolution = `package demo

func Add(a, b int) int { return a + b }

func Double(x int) int { return 2 * x }
`

const demoTests = `package demo

import "testing"

// TestTask1_Add adds.
//
//grade:task 1 points 2
func TestTask1_Add(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d; want 5", got)
	}
}

// TestTask1_AddNegative adds below zero.
//
//grade:task 1 points 1
func TestTask1_AddNegative(t *testing.T) {
	if got := Add(-2, -3); got != -5 {
		t.Errorf("Add(-2, -3) = %d; want -5", got)
	}
}

// TestTask2_Double doubles.
//
//grade:task 2 points 3
func TestTask2_Double(t *testing.T) {
	if got := Double(21); got != 42 {
		t.Errorf("Double(21) = %d; want 42", got)
	}
}

// fixture is a test's package-level value, which graded code must not reach.
var fixture = 42
`

const otherStub = `package other

// Hello returns "hello".
func Hello() string { return "" }
`

const otherSolution = `package other

func Hello() string { return "hello" }
`

const otherTests = `package other

import "testing"

// TestTask1_Hello greets.
//
//grade:task 1 points 1
func TestTask1_Hello(t *testing.T) {
	if got := Hello(); got != "hello" {
		t.Errorf("Hello() = %q; want \"hello\"", got)
	}
}
`

// demoTrack writes the small track's module and returns its root.
func demoTrack(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	write(t, root, "go.mod", "module "+modulePath+"\n\ngo 1.26\n")
	write(t, root, "exercises/01-demo/demo.go", demoStub)
	write(t, root, "exercises/01-demo/demo_test.go", demoTests)
	write(t, root, "exercises/02-other/other.go", otherStub)
	write(t, root, "exercises/02-other/other_test.go", otherTests)
	return root
}

// submission writes a learner's copy: the solutions, with files replaced as
// given ("" deletes a file).
func submission(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "exercises/01-demo/demo.go", demoSolution)
	write(t, dir, "exercises/02-other/other.go", otherSolution)
	for name, content := range files {
		if content == "" {
			os.Remove(filepath.Join(dir, name))
			continue
		}
		write(t, dir, name, content)
	}
	return dir
}

func write(t *testing.T, root, name, content string) {
	t.Helper()
	path := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// treeHash fingerprints every file, link and folder below dir, to show that
// grading left a submission as it was.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		info, err := d.Info()
		if err != nil {
			return err
		}
		h.Write([]byte(rel + "\x00" + info.Mode().String() + "\x00"))
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			h.Write([]byte(target))
		case info.Mode().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// gradeDemo grades sub against the small track and checks that grading left
// both the submission and the grader's checkout unchanged.
func gradeDemo(t *testing.T, root, sub, hidden string) *Report {
	t.Helper()
	before, rootBefore := treeHash(t, sub), treeHash(t, root)
	rep, err := Grade(context.Background(), demoConfig(t, root, sub, hidden))
	if err != nil {
		t.Fatalf("Grade: %v", err)
	}
	if treeHash(t, sub) != before {
		t.Error("grading changed the submission's folder")
	}
	if treeHash(t, root) != rootBefore {
		t.Error("grading changed the grader's checkout")
	}
	return rep
}

// demoConfig is how the tests grade: in the sandbox, with the grader's own
// build cache, and short limits. The race detector, which makes every
// build slower, is on in the tests about races and on the course's track.
func demoConfig(t *testing.T, root, sub, hidden string) Config {
	t.Helper()
	cache, err := defaultCache()
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		Root: root, Submission: sub, Hidden: hidden, Jobs: 2,
		Limits:  Limits{Timeout: 3 * time.Second, Memory: 512 << 20},
		Sandbox: testSandbox(t), Cache: cache, Budget: 2 * time.Minute,
	}
}

var (
	sandboxOnce sync.Once
	sandbox     *Sandbox
	sandboxErr  error
)

// testSandbox is the sandbox the tests grade in. Without one they fail:
// `make test` installs bubblewrap, and a grader test that skipped would
// vouch for nothing.
func testSandbox(t *testing.T) *Sandbox {
	t.Helper()
	sandboxOnce.Do(func() { sandbox, sandboxErr = NewSandbox() })
	if sandboxErr != nil {
		t.Fatalf("the grader's tests need its sandbox: %v", sandboxErr)
	}
	return sandbox
}

// statuses maps "exercise/test" to "status points" for compact comparisons.
func statuses(rep *Report) map[string]string {
	m := map[string]string{}
	for _, er := range rep.Exercises {
		for _, r := range er.Results {
			m[er.Name+"/"+r.Name] = r.Status + " " + strconv.Itoa(r.Earned)
		}
	}
	return m
}

func expect(t *testing.T, rep *Report, want map[string]string) {
	t.Helper()
	got := statuses(rep)
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got %q; want %q (message: %s)", k, got[k], w, message(rep, k))
		}
	}
	if len(got) != len(want) {
		t.Errorf("graded %d tests: %v; want %d", len(got), got, len(want))
	}
}

func message(rep *Report, key string) string {
	for _, er := range rep.Exercises {
		for _, r := range er.Results {
			if er.Name+"/"+r.Name == key {
				return r.Message
			}
		}
	}
	return ""
}

var allPass = map[string]string{
	"01-demo/TestTask1_Add":         "pass 2",
	"01-demo/TestTask1_AddNegative": "pass 1",
	"01-demo/TestTask2_Double":      "pass 3",
	"02-other/TestTask1_Hello":      "pass 1",
}

// with returns allPass with the 01-demo tests' outcomes replaced.
func with(add, addNeg, double string) map[string]string {
	return map[string]string{
		"01-demo/TestTask1_Add":         add,
		"01-demo/TestTask1_AddNegative": addNeg,
		"01-demo/TestTask2_Double":      double,
		"02-other/TestTask1_Hello":      "pass 1",
	}
}

func TestGradeSolutionsAndStubs(t *testing.T) {
	root := demoTrack(t)
	rep := gradeDemo(t, root, submission(t, nil), "")
	expect(t, rep, allPass)
	if all := rep.All(); all.Score != 7 || all.MaxScore != 7 {
		t.Errorf("solutions scored %d/%d; want 7/7", all.Score, all.MaxScore)
	}
	// The grader's own checkout, untouched, is the stubs: everything fails.
	rep = gradeDemo(t, root, root, "")
	expect(t, rep, map[string]string{
		"01-demo/TestTask1_Add":         "fail 0",
		"01-demo/TestTask1_AddNegative": "fail 0",
		"01-demo/TestTask2_Double":      "fail 0",
		"02-other/TestTask1_Hello":      "fail 0",
	})
	if msg := message(rep, "01-demo/TestTask1_Add"); msg != "Add(2, 3) = 0; want 5" {
		t.Errorf("stub's failure message is %q; want the test's own words, \"Add(2, 3) = 0; want 5\"", msg)
	}
}

func TestGradeHalfDone(t *testing.T) {
	root := demoTrack(t)
	sub := submission(t, map[string]string{"exercises/01-demo/demo.go": strings.Replace(demoSolution, "2 * x", "x", 1)})
	rep := gradeDemo(t, root, sub, "")
	expect(t, rep, with("pass 2", "pass 1", "fail 0"))
	if p, n := rep.Exercises[0].tasks(); p != 1 || n != 2 {
		t.Errorf("tasks passed %d of %d; want 1 of 2", p, n)
	}
}

func TestGradeAcceptsTheExercisesFolder(t *testing.T) {
	root := demoTrack(t)
	sub := submission(t, nil)
	rep := gradeDemo(t, root, filepath.Join(sub, "exercises"), "")
	expect(t, rep, allPass)
}

// TestHostileSubmissions: each submission tries to score what it did not
// earn, or to take the grader down; each must get exactly its points.
func TestHostileSubmissions(t *testing.T) {
	root := demoTrack(t)
	demo := "exercises/01-demo/demo.go"
	cases := []struct {
		name  string
		files map[string]string
		want  map[string]string
		says  string // part of the first 01-demo message
	}{
		{
			name:  "compile error in one exercise",
			files: map[string]string{demo: "package demo\n\nfunc Add(a, b int) int { return a + }\n"},
			want:  with("error 0", "error 0", "error 0"),
			says:  "not built: does not parse: exercises/01-demo/demo.go:3:",
		},
		{
			name:  "panic in one task",
			files: map[string]string{demo: strings.Replace(demoSolution, "return 2 * x", "var s []int\n\treturn s[x]", 1)},
			want:  with("pass 2", "pass 1", "fail 0"),
		},
		{
			name: "a goroutine",
			files: map[string]string{demo: strings.Replace(demoSolution, "return 2 * x",
				"done := make(chan int)\n\tgo func() { panic(\"boom\") }()\n\treturn <-done", 1)},
			want: with("error 0", "error 0", "error 0"),
			says: "exercises/01-demo/demo.go:6: a go statement starts a goroutine",
		},
		{
			name:  "a goroutine by time.AfterFunc",
			files: map[string]string{"exercises/01-demo/later.go": "package demo\n\nimport t \"time\"\n\nvar f = t.AfterFunc\n"},
			want:  with("error 0", "error 0", "error 0"),
			says:  "exercises/01-demo/later.go:5: time.AfterFunc runs a function on a goroutine",
		},
		{
			name:  "a dot import",
			files: map[string]string{"exercises/01-demo/dot.go": "package demo\n\nimport . \"context\"\n\nvar _ = AfterFunc\n"},
			want:  with("error 0", "error 0", "error 0"),
			says:  "may not dot-import",
		},
		{
			name:  "a //line directive",
			files: map[string]string{"exercises/01-demo/line.go": "package demo\n\n//line demo_test.go:1\nvar x = 1\n"},
			want:  with("error 0", "error 0", "error 0"),
			says:  "exercises/01-demo/line.go:3: the directive //line is not allowed",
		},
		{
			name:  "endless loop",
			files: map[string]string{demo: strings.Replace(demoSolution, "return 2 * x", "for {\n\t\tx++\n\t}", 1)},
			want:  with("pass 2", "pass 1", "timeout 0"),
		},
		{
			name:  "os.Exit(0) in a task",
			files: map[string]string{demo: "package demo\n\nimport \"os\"\n\nfunc Add(a, b int) int { os.Exit(0); return 0 }\n\nfunc Double(x int) int { os.Exit(0); return 0 }\n"},
			want:  with("error 0", "error 0", "error 0"),
			says:  `imports "os"`,
		},
		{
			name:  "os.Exit(1) in init",
			files: map[string]string{"exercises/01-demo/init.go": "package demo\n\nimport \"os\"\n\nfunc init() { os.Exit(1) }\n"},
			want:  with("error 0", "error 0", "error 0"),
			says:  `imports "os"`,
		},
		{
			name:  "syscall, unsafe, embed, cgo and the runtime",
			files: map[string]string{"exercises/01-demo/x.go": "package demo\n\nimport (\n\t_ \"unsafe\"\n\t_ \"syscall\"\n)\n"},
			want:  with("error 0", "error 0", "error 0"),
			says:  `imports "unsafe"`,
		},
		{
			name:  "embedding the tests' source to print it",
			files: map[string]string{"exercises/01-demo/leak.go": "package demo\n\nimport _ \"embed\"\n\n//go:embed demo_test.go\nvar source string\n"},
			want:  with("error 0", "error 0", "error 0"),
			says:  `imports "embed"`,
		},
		{
			name:  "writing files around it",
			files: map[string]string{"exercises/01-demo/write.go": "package demo\n\nimport \"io/ioutil\"\n\nfunc init() { ioutil.WriteFile(\"../../report.json\", nil, 0o644) }\n"},
			want:  with("error 0", "error 0", "error 0"),
			says:  `imports "io/ioutil"`,
		},
		{
			name: "prints passing lines and test2json events",
			files: map[string]string{demo: strings.Replace(demoSolution, "return 2 * x",
				"fmt.Print(\"--- PASS: TestTask2_Double (0.00s)\\nPASS\\nok  \\tdemo\\t0.1s\\n\\x16--- PASS: TestTask2_Double (0.00s)\\n{\\\"Action\\\":\\\"pass\\\",\\\"Test\\\":\\\"TestTask2_Double\\\"}\\n\")\n\treturn x", 1),
			},
			want: with("pass 2", "pass 1", "fail 0"),
		},
		{
			name: "an edited test file and its own TestMain",
			files: map[string]string{
				demo:                             demoStub,
				"exercises/01-demo/demo_test.go": "package demo\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) { os.Exit(0) }\n\nfunc TestTask1_Add(t *testing.T) {}\n",
				"exercises/01-demo/more_test.go": "package demo\n\nimport \"testing\"\n\nfunc TestTask2_Double(t *testing.T) {}\n",
			},
			want: with("fail 0", "fail 0", "fail 0"),
		},
		{
			name:  "reaching into the tests' fixtures",
			files: map[string]string{"exercises/01-demo/init.go": "package demo\n\nfunc init() { fixture = 0 }\n"},
			want:  with("error 0", "error 0", "error 0"),
			says:  "did not compile: exercises/01-demo/init.go:3:15: undefined: fixture",
		},
		{
			name:  "a test function in a non-test file",
			files: map[string]string{demo: demoStub + "\nfunc TestTask1_Add(t int) {}\n"},
			want:  with("error 0", "error 0", "error 0"),
			says:  "did not compile",
		},
		{
			name: "an output flood",
			files: map[string]string{demo: strings.Replace(demoSolution, "return 2 * x",
				"line := strings.Repeat(\"--- PASS: TestTask2_Double \", 1000)\n\tfor i := 0; i < 20000; i++ {\n\t\tfmt.Println(line)\n\t}\n\treturn x", 1),
			},
			want: with("pass 2", "pass 1", "fail 0"),
		},
		{
			name: "memory without end",
			files: map[string]string{demo: strings.Replace(demoSolution, "return 2 * x",
				"var keep [][]byte\n\tfor {\n\t\tb := make([]byte, 64<<20)\n\t\tfor i := range b {\n\t\t\tb[i] = 1\n\t\t}\n\t\tkeep = append(keep, b)\n\t}", 1)},
			want: with("pass 2", "pass 1", "error 0"),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sub := submission(t, c.files)
			fixImports(t, sub)
			rep := gradeDemo(t, root, sub, "")
			expect(t, rep, c.want)
			if c.says != "" {
				if msg := message(rep, "01-demo/TestTask1_Add"); !strings.Contains(msg, c.says) {
					t.Errorf("message %q; want it to say %q", msg, c.says)
				}
			}
		})
	}
}

// fixImports adds the imports the hostile demo files use.
func fixImports(t *testing.T, sub string) {
	path := filepath.Join(sub, "exercises/01-demo/demo.go")
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	s := string(data)
	var imports []string
	for _, pkg := range []string{"fmt", "strings"} {
		if strings.Contains(s, pkg+".") && !strings.Contains(s, "\""+pkg+"\"") {
			imports = append(imports, "\""+pkg+"\"")
		}
	}
	if len(imports) > 0 {
		s = strings.Replace(s, "package demo\n", "package demo\n\nimport ("+strings.Join(imports, "; ")+")\n", 1)
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSymbolicLinksAreNotFollowed(t *testing.T) {
	root := demoTrack(t)
	outside := t.TempDir()
	write(t, outside, "demo.go", demoSolution)
	write(t, outside, "other/other.go", otherSolution)

	sub := submission(t, map[string]string{"exercises/01-demo/demo.go": ""})
	if err := os.Symlink(filepath.Join(outside, "demo.go"), filepath.Join(sub, "exercises/01-demo/demo.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(sub, "exercises/02-other")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "other"), filepath.Join(sub, "exercises/02-other")); err != nil {
		t.Fatal(err)
	}
	rep := gradeDemo(t, root, sub, "")
	want := map[string]string{
		"01-demo/TestTask1_Add":         "missing 0",
		"01-demo/TestTask1_AddNegative": "missing 0",
		"01-demo/TestTask2_Double":      "missing 0",
		"02-other/TestTask1_Hello":      "missing 0",
	}
	expect(t, rep, want)
	if notes := strings.Join(rep.Exercises[0].Notes, "; "); !strings.Contains(notes, "symbolic link") {
		t.Errorf("notes %q; want one saying demo.go is a symbolic link", notes)
	}
	if msg := message(rep, "02-other/TestTask1_Hello"); !strings.Contains(msg, "symbolic link") {
		t.Errorf("message %q; want one saying the folder is a symbolic link", msg)
	}
}

func TestMissingExercise(t *testing.T) {
	root := demoTrack(t)
	sub := submission(t, nil)
	if err := os.RemoveAll(filepath.Join(sub, "exercises/02-other")); err != nil {
		t.Fatal(err)
	}
	rep := gradeDemo(t, root, sub, "")
	if got := statuses(rep)["02-other/TestTask1_Hello"]; got != "missing 0" {
		t.Errorf("02-other: %q; want \"missing 0\"", got)
	}
	if msg := message(rep, "02-other/TestTask1_Hello"); !strings.Contains(msg, "no exercises/02-other folder") {
		t.Errorf("message %q; want it to name the missing folder", msg)
	}
}

func TestHiddenTests(t *testing.T) {
	root := demoTrack(t)
	hidden := t.TempDir()
	write(t, hidden, "01-demo/extra_test.go", `package demo

import "testing"

// TestHidden_Zero is an instructor's test.
//
//grade:task 3 points 2
func TestHidden_Zero(t *testing.T) {
	if Add(0, 0) != 0 || Double(0) != 0 {
		t.Errorf("zero case failed")
	}
}

// TestHidden_Large is another.
//
//grade:task 3 points 4
func TestHidden_Large(t *testing.T) {
	if got := Double(1 << 40); got != 1<<41 {
		t.Errorf("Double(1<<40) = %d; want %d", got, 1<<41)
	}
}
`)
	sub := submission(t, map[string]string{"exercises/01-demo/demo.go": strings.Replace(demoSolution, "2 * x", "x + x%2", 1)})
	rep := gradeDemo(t, root, sub, hidden)
	want := with("pass 2", "pass 1", "fail 0")
	want["01-demo/TestHidden_Zero"] = "pass 2"
	want["01-demo/TestHidden_Large"] = "fail 0"
	expect(t, rep, want)
	pub, all := rep.Public(), rep.All()
	if pub.Score != 4 || pub.MaxScore != 7 || all.Score != 6 || all.MaxScore != 13 {
		t.Errorf("public %d/%d, with hidden %d/%d; want 4/7 and 6/13", pub.Score, pub.MaxScore, all.Score, all.MaxScore)
	}
	if line := totalsLine(rep); line != "public tests: 4/7; with hidden tests: 6/13 points (4 of 6 tests passed)" {
		t.Errorf("totals line %q", line)
	}
}
