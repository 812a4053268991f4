package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
)

// Each attack a determined learner made on the grader, built as a real
// submission: each must score exactly what it earned, change nothing
// outside its scratch folder and leak nothing.

// allReports renders every report of rep, as a learner or a CI page would
// see them, and what the test processes printed.
func allReports(t *testing.T, rep *Report) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range reportFiles {
		var b bytes.Buffer
		if err := f.write(&b, rep); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		out[f.name] = b.String()
	}
	var printed strings.Builder
	for _, er := range rep.Exercises {
		for _, r := range er.Results {
			printed.WriteString(r.output)
		}
	}
	out["printed"] = printed.String()
	return out
}

// TestSandboxHoldsUncheckedCode hands the sandbox code that the source
// checks would refuse (the race exploit's end result: any code at all) and
// lets it try everything: read the grader's checkout, the hidden tests and
// the build overlay, write outside its folder and into the checkout,
// reach the network, and leave a process behind.
func TestSandboxHoldsUncheckedCode(t *testing.T) {
	root := demoTrack(t)
	write(t, root, "solutions/01-demo/demo.go", demoSolution+"// SECRET-SOLUTION\n")
	hidden := t.TempDir()
	write(t, hidden, "01-demo/extra_test.go", "package demo\n\nimport \"testing\"\n\n// TestHidden_Secret holds SECRET-HIDDEN.\n//\n//grade:task 3 points 1\nfunc TestHidden_Secret(t *testing.T) {\n\tif Add(40, 2) != 42 {\n\t\tt.Error(\"SECRET-HIDDEN\")\n\t}\n}\n")
	outside := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	reached := make(chan string, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			reached <- c.RemoteAddr().String()
			c.Close()
		}
	}()
	marker := fmt.Sprintf("survivor-%d", time.Now().UnixNano())
	attack := fmt.Sprintf(`package demo

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

func init() {
	for _, p := range []string{%q, %q, %q, "../overlay.json", "/grade/overlay.json"} {
		if b, err := os.ReadFile(p); err == nil {
			fmt.Println("LEAK:", p, string(b))
		}
	}
	matches, _ := filepath.Glob("/tmp/tokenbytoken-grade-*/*/overlay*.json")
	for _, p := range matches {
		b, _ := os.ReadFile(p)
		fmt.Println("LEAK:", p, string(b))
	}
	os.WriteFile(%q, []byte("planted"), 0o644)
	os.WriteFile(%q, []byte("package demo\n"), 0o644)
	if c, err := net.DialTimeout("tcp", %q, time.Second); err == nil {
		c.Write([]byte("escaped"))
		c.Close()
	}
	cmd := exec.Command("/bin/sh", "-c", "sleep 30; : %s")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Start()
}

func Add(a, b int) int { return a + b }

func Double(x int) int { return 2 * x }
`, filepath.Join(root, "exercises/01-demo/demo_test.go"), filepath.Join(root, "solutions/01-demo/demo.go"),
		filepath.Join(hidden, "01-demo/extra_test.go"),
		filepath.Join(outside, "planted.txt"), filepath.Join(root, "exercises/01-demo/zz_planted_test.go"),
		ln.Addr().String(), marker)
	sub := submission(t, map[string]string{"exercises/01-demo/demo.go": attack})
	before, rootBefore, hiddenBefore := treeHash(t, sub), treeHash(t, root), treeHash(t, hidden)
	cfg := demoConfig(t, root, sub, hidden)
	cfg.unchecked = true
	rep, err := Grade(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Grade: %v", err)
	}
	// The code is correct: inside the sandbox, it earns its points.
	want := with("pass 2", "pass 1", "pass 3")
	want["01-demo/TestHidden_Secret"] = "pass 1"
	expect(t, rep, want)
	if treeHash(t, sub) != before || treeHash(t, root) != rootBefore || treeHash(t, hidden) != hiddenBefore {
		t.Error("the submission, the grader's checkout or the hidden tests changed")
	}
	if _, err := os.Stat(filepath.Join(outside, "planted.txt")); err == nil {
		t.Error("graded code wrote a file outside its scratch folder")
	}
	select {
	case from := <-reached:
		t.Errorf("graded code reached the network: a connection from %s", from)
	default:
	}
	if pids := processesWith(marker); len(pids) > 0 {
		t.Errorf("graded code left processes running after its test was over: %v", pids)
	}
	for name, text := range allReports(t, rep) {
		for _, leak := range []string{"LEAK:", "SECRET-SOLUTION", "SECRET-HIDDEN", "fixture = 42"} {
			if strings.Contains(text, leak) {
				t.Errorf("%s holds %q:\n%s", name, leak, clip(text, 2000))
			}
		}
	}
}

// processesWith lists the processes whose command line holds s.
func processesWith(s string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(s)) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// TestExitingEarlyEarnsNothing: code that ends the test process with
// status 0 (what the race exploit did to score everything) has not shown
// that any test passed.
func TestExitingEarlyEarnsNothing(t *testing.T) {
	root := demoTrack(t)
	sub := submission(t, map[string]string{
		"exercises/01-demo/demo.go":   "package demo\n\nimport \"os\"\n\nfunc Add(a, b int) int { os.Exit(0); return 0 }\n\nfunc Double(x int) int { os.Exit(0); return 0 }\n",
		"exercises/02-other/other.go": "package other\n\nimport \"os\"\n\nfunc init() { os.Stdout.WriteString(\"PASS\\n\"); os.Exit(0) }\n\nfunc Hello() string { return \"\" }\n",
	})
	cfg := demoConfig(t, root, sub, "")
	cfg.unchecked = true
	rep, err := Grade(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, rep, map[string]string{
		"01-demo/TestTask1_Add": "error 0", "01-demo/TestTask1_AddNegative": "error 0",
		"01-demo/TestTask2_Double": "error 0", "02-other/TestTask1_Hello": "error 0",
	})
	if msg := message(rep, "01-demo/TestTask1_Add"); !strings.Contains(msg, "ended without finishing the test") {
		t.Errorf("message %q; want it to say the test did not finish", msg)
	}
}

// TestDataRaceFailsItsTest: with the race detector (its exit delay off), a data race is caught
// and reported as one.
func TestDataRaceFailsItsTest(t *testing.T) {
	if !raceSupported() {
		t.Skip("no race detector on " + fmt.Sprint(raceSupported()))
	}
	root := demoTrack(t)
	racy := strings.Replace(demoSolution, "return 2 * x", "v := 0\n\tdone := make(chan bool)\n\tgo func() { v = x; done <- true }()\n\tv = x\n\t<-done\n\treturn 2 * v", 1)
	sub := submission(t, map[string]string{"exercises/01-demo/demo.go": racy})
	cfg := demoConfig(t, root, sub, "")
	cfg.unchecked, cfg.Race = true, true
	rep, err := Grade(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, rep, with("pass 2", "pass 1", "race 0"))
}

// recoverTrack is the small track with a third exercise whose test uses
// the course's check.Recover, as every exercise's tests do.
func recoverTrack(t *testing.T) string {
	root := demoTrack(t)
	src, err := os.ReadFile("../internal/check/check.go")
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "exercises/internal/check/check.go", string(src))
	write(t, root, "exercises/03-third/third.go", "package third\n\n// Triple returns 3x.\nfunc Triple(x int) int { return 0 }\n")
	write(t, root, "exercises/03-third/third_test.go", `package third

import (
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestTask1_Triple triples.
//
//grade:task 1 points 4
func TestTask1_Triple(t *testing.T) {
	defer check.Recover(t)
	if got := Triple(3); got != 9 {
		t.Errorf("Triple(3) = %d; want 9", got)
	}
}
`)
	return root
}

// TestPanicNil: panic(nil), with a //go:debug line that asks the runtime
// to let it recover as nil, scored as a pass before. The directive is
// refused; and code that gets past the checks still fails.
func TestPanicNil(t *testing.T) {
	root := recoverTrack(t)
	third := "//go:debug panicnil=1\n\npackage third\n\nfunc Triple(x int) int { panic(nil) }\n"
	sub := submission(t, map[string]string{"exercises/03-third/third.go": third})
	rep := gradeDemo(t, root, sub, "")
	if got := statuses(rep)["03-third/TestTask1_Triple"]; got != "error 0" {
		t.Errorf("checked: %s; want error 0", got)
	}
	if msg := message(rep, "03-third/TestTask1_Triple"); !strings.Contains(msg, "exercises/03-third/third.go:1: the directive //go:debug is not allowed") {
		t.Errorf("message %q; want it to name the directive and its line", msg)
	}
	cfg := demoConfig(t, root, sub, "")
	cfg.unchecked = true
	rep, err := Grade(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(rep)["03-third/TestTask1_Triple"]; got != "fail 0" {
		t.Errorf("unchecked: %s; want fail 0", got)
	}
	if msg := message(rep, "03-third/TestTask1_Triple"); !strings.Contains(msg, "panicked") {
		t.Errorf("message %q; want it to say the code panicked", msg)
	}
}

// TestHiddenTestsNeverLeakThroughTheCompiler: a signature that the public
// tests accept and the hidden ones do not gives a message that shows
// nothing of the hidden tests; one that breaks the public tests too shows
// the public tests' errors only.
func TestHiddenTestsNeverLeakThroughTheCompiler(t *testing.T) {
	root := demoTrack(t)
	hidden := t.TempDir()
	write(t, hidden, "01-demo/secret_test.go", `package demo

import "testing"

var secretInputs = []int{1234567, 7654321}

// TestHidden_Signature checks the exact signature.
//
//grade:task 3 points 2
func TestHidden_Signature(t *testing.T) {
	var f func(int) int = Double
	for _, x := range secretInputs {
		if f(x) != 2*x {
			t.Errorf("SECRET %d", x)
		}
	}
	var s string = Double(secretInputs[0])
	_ = s
}
`)
	for _, c := range []struct {
		name, demo, says string
	}{
		{"the hidden tests alone fail", strings.Replace(demoSolution, "func Double(x int) int { return 2 * x }", "func Double(x int64) int64 { return 2 * x }", 1), hiddenBuildMessage},
		{"the public tests fail too", strings.Replace(demoSolution, "func Double(x int) int { return 2 * x }", "func Double(x string) string { return x + x }", 1), "demo_test.go"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sub := submission(t, map[string]string{"exercises/01-demo/demo.go": c.demo})
			rep := gradeDemo(t, root, sub, hidden)
			if got := statuses(rep)["01-demo/TestHidden_Signature"]; got != "error 0" {
				t.Errorf("hidden test %s; want error 0", got)
			}
			said := rep.Exercises[0].Compile + strings.Join(rep.Exercises[0].Notes, "\n")
			if !strings.Contains(said, c.says) {
				t.Errorf("the exercise's messages %q do not say %q", said, c.says)
			}
			if c.says == hiddenBuildMessage {
				// The public tests still run, and count.
				if got := statuses(rep)["01-demo/TestTask2_Double"]; got != "pass 3" {
					t.Errorf("public test TestTask2_Double: %s; want pass 3", got)
				}
				if msg := message(rep, "01-demo/TestHidden_Signature"); msg != hiddenBuildMessage {
					t.Errorf("the hidden test's message %q; want %q", msg, hiddenBuildMessage)
				}
			}
			for name, text := range allReports(t, rep) {
				for _, leak := range []string{"secret", "SECRET", "1234567", "zz_hidden", "secretInputs"} {
					if strings.Contains(text, leak) {
						t.Errorf("%s holds %q:\n%s", name, leak, clip(text, 2000))
					}
				}
			}
		})
	}
}

// TestMessagesLearnersWrite: graded code prints what looks like a test's
// message, and returns text made to break the reports: Markdown links and
// images, HTML, terminal escapes and control characters.
func TestMessagesLearnersWrite(t *testing.T) {
	root := demoTrack(t)
	spoof := strings.Replace(demoSolution, "return 2 * x",
		"fmt.Print(\"    demo_test.go:1: SPOOFED\\n--- FAIL: TestTask2_Double (0.00s)\\n    demo_test.go:28: SPOOFED\\n\")\n\treturn x", 1)
	hostile := "package other\n\nfunc Hello() string { return \"![x](https://evil.example/?q=1) <img src=x> [a](b) \\x1b[2J\\x00\\x07\\x0b\\xff\\u202e end\" }\n"
	sub := submission(t, map[string]string{"exercises/01-demo/demo.go": spoof, "exercises/02-other/other.go": hostile})
	fixImports(t, sub)
	rep := gradeDemo(t, root, sub, "")
	if msg := message(rep, "01-demo/TestTask2_Double"); msg != "Double(21) = 21; want 42" {
		t.Errorf("message %q; want the test's own, \"Double(21) = 21; want 42\"", msg)
	}
	reports := allReports(t, rep)
	for name, text := range reports {
		if name == "printed" {
			continue
		}
		if name != "events.json" && strings.Contains(text, "SPOOFED") { // the raw record holds what was printed
			t.Errorf("%s shows what graded code printed as a message", name)
		}
		if i := strings.IndexFunc(text, func(r rune) bool { return r != '\n' && r != '\t' && r != '\r' && unicode.IsControl(r) }); i >= 0 {
			t.Errorf("%s holds the control character %q", name, text[i])
		}
		if strings.ContainsRune(text, '\u202e') {
			t.Errorf("%s holds a text-direction override", name)
		}
	}
	md := reports["summary.md"]
	for _, bad := range []string{"![", "](", "<img", "https://", "[a]"} {
		if strings.Contains(md, bad) {
			t.Errorf("summary.md holds %q, which Markdown would render:\n%s", bad, md)
		}
	}
	if !strings.Contains(md, "evil") {
		t.Errorf("summary.md should still show the message, escaped:\n%s", md)
	}
	if err := xml.Unmarshal([]byte(reports["junit.xml"]), new(struct{})); err != nil {
		t.Errorf("junit.xml does not parse: %v", err)
	}
	for _, name := range []string{"report.json", "classroom.json"} {
		if !json.Valid([]byte(reports[name])) {
			t.Errorf("%s is not valid JSON", name)
		}
	}
}

// TestSleepInInit: a package initialisation that never ends costs one time
// limit per exercise, not one per test, and the limit counts it.
func TestSleepInInit(t *testing.T) {
	root := demoTrack(t)
	sub := submission(t, map[string]string{"exercises/01-demo/init.go": "package demo\n\nimport \"time\"\n\nfunc init() { time.Sleep(time.Hour) }\n"})
	cfg := demoConfig(t, root, sub, "")
	rep, err := Grade(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, rep, with("timeout 0", "timeout 0", "timeout 0"))
	// One process ran, and was stopped at the limit; the other tests,
	// whose initialisation would hang the same way, were not started.
	started := 0
	for _, r := range rep.Exercises[0].Results {
		if r.Duration > 0 {
			started++
		}
	}
	if started != 1 {
		t.Errorf("%d test processes were started; want 1", started)
	}
	if msg := message(rep, "01-demo/TestTask1_Add"); !strings.Contains(msg, "initialisation") {
		t.Errorf("message %q; want it to name the package's initialisation", msg)
	}
}

// TestCompileBomb: a few lines that make the compiler build a 1 GiB array
// are stopped by the compilation's limits, quickly, and leave the build
// cache as it was.
func TestCompileBomb(t *testing.T) {
	root := demoTrack(t)
	sub := submission(t, map[string]string{"exercises/01-demo/bomb.go": "package demo\n\nvar Big = [1 << 27]int64{1: 1}\n\nfunc init() { Big[5] = 1 }\n"})
	cfg := demoConfig(t, root, sub, "")
	sizeBefore := dirSize(cfg.Cache)
	start := time.Now()
	rep, err := Grade(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	expect(t, rep, with("error 0", "error 0", "error 0"))
	if took > 2*time.Minute {
		t.Errorf("grading took %s", took)
	}
	if grew := dirSize(cfg.Cache) - sizeBefore; grew > 64<<20 {
		t.Errorf("the build cache grew by %d MiB", grew>>20)
	}
	t.Logf("compile bomb: %s, message %q", took.Round(time.Millisecond), message(rep, "01-demo/TestTask1_Add"))
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// TestTimeBudget: a submission whose every test loops forever costs its
// budget, not a time limit per test.
func TestTimeBudget(t *testing.T) {
	root := demoTrack(t)
	loop := "package demo\n\nfunc Add(a, b int) int {\n\tfor {\n\t\ta++\n\t}\n}\n\nfunc Double(x int) int {\n\tfor {\n\t\tx++\n\t}\n}\n"
	sub := submission(t, map[string]string{"exercises/01-demo/demo.go": loop})
	cfg := demoConfig(t, root, sub, "")
	cfg.Jobs, cfg.Budget = 1, 5*time.Second
	start := time.Now()
	rep, err := Grade(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	statuses := statuses(rep)
	for _, test := range []string{"01-demo/TestTask1_Add", "01-demo/TestTask1_AddNegative", "01-demo/TestTask2_Double"} {
		if statuses[test] != "timeout 0" {
			t.Errorf("%s: %s; want timeout 0", test, statuses[test])
		}
	}
	if msg := message(rep, "01-demo/TestTask2_Double"); !strings.Contains(msg, "time budget") {
		t.Errorf("message %q; want it to name the time budget", msg)
	}
	if took := time.Since(start); took > cfg.Budget+30*time.Second {
		t.Errorf("grading took %s with a budget of %s", took, cfg.Budget)
	}
}

// TestQuizBruteForce: a public quiz is a self-check, so answers worked
// out from its fingerprints earn nothing.
func TestQuizBruteForce(t *testing.T) {
	root := demoTrack(t)
	write(t, root, "exercises/02-other/quiz.go", "package other\n\nconst Answer1 = \"\"\n")
	write(t, root, "exercises/02-other/quiz_test.go", "package other\n\nimport \"testing\"\n\n// TestQuiz1 is a public quiz question.\n//\n//grade:task 2 selfcheck\nfunc TestQuiz1(t *testing.T) {\n\tif Answer1 != \"b\" {\n\t\tt.Error(\"not b\")\n\t}\n}\n")
	sub := submission(t, map[string]string{"exercises/02-other/quiz.go": "package other\n\nconst Answer1 = \"b\"\n"})
	rep := gradeDemo(t, root, sub, "")
	if got := statuses(rep)["02-other/TestQuiz1"]; got != "pass 0" {
		t.Errorf("the right answer: %s; want pass 0", got)
	}
	if all := rep.All(); all.Score != 7 || all.MaxScore != 7 {
		t.Errorf("score %d/%d; want 7/7, the quiz worth nothing", all.Score, all.MaxScore)
	}
	if text := allReports(t, rep)["report.txt"]; !strings.Contains(text, "TestQuiz1 (self-check)") {
		t.Errorf("report.txt does not mark the quiz as a self-check:\n%s", text)
	}
}

// TestNoSandbox: without bubblewrap the grader says what to install; an
// explicit -no-sandbox grades, and every report says so first.
func TestNoSandbox(t *testing.T) {
	t.Run("without bwrap", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		if _, err := NewSandbox(); err == nil || !strings.Contains(err.Error(), "apt-get install bubblewrap") {
			t.Errorf("NewSandbox without bwrap: %v; want it to say what to install", err)
		}
	})
	rep := &Report{NoSandbox: sandboxNote, Exercises: []*ExerciseReport{{Name: "01-demo", Results: []Result{{Test: Test{Name: "TestA", Task: 1, Points: 1}, Status: StatusPass, Earned: 1}}}}}
	for name, text := range allReports(t, rep) {
		if name == "printed" {
			continue
		}
		first := firstLine(text)
		if name == "report.json" || name == "classroom.json" {
			first = strings.TrimSpace(firstLine(strings.TrimPrefix(text, "{")))
			if first == "" {
				first = text
			}
		}
		if !strings.Contains(first, "no-sandbox") {
			t.Errorf("%s starts %q; want the warning first", name, clip(first, 120))
		}
	}
}

// The second round of attacks: a build the grader checks that is not the
// build it runs, names that become lines, learner code run on a goroutine
// without a go statement, a class's files taken by a learner's folder,
// the hidden tests' imports shown through a compiler message, and a
// package compiled to fill the build cache.

// referenceTests is a test file that keeps the answer in an unexported
// helper, as the course's exercises keep theirs (02-softmax's reference).
const referenceTests = "package demo\n\nfunc reference(x int) int { return 2 * x }\n"

// TestBuildConstraints: a file that only the race-built test binary takes
// (// +build race) could call the tests' own reference, which the
// learner's files alone never see. Every build constraint, in either
// form, is refused, as are file names that select a build, and files of
// other languages; the learner's files alone are built exactly as the
// test binary is.
func TestBuildConstraints(t *testing.T) {
	root := demoTrack(t)
	write(t, root, "exercises/01-demo/reference_test.go", referenceTests)
	delegate := "package demo\n\nfunc init() { double = reference }\n"
	demo := "package demo\n\nvar double = func(x int) int { return 0 }\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Double(x int) int { return double(x) }\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		says  string
	}{
		{"// +build race", map[string]string{"exercises/01-demo/race.go": "// +build race\n\n" + delegate}, `the build constraint "// +build race"`},
		{"//+build race", map[string]string{"exercises/01-demo/race.go": "//+build race\n\n" + delegate}, `the build constraint "//+build race"`},
		{"// +build tab", map[string]string{"exercises/01-demo/race.go": "//\t+build race\n\n" + delegate}, "the build constraint"},
		{"//go:build race", map[string]string{"exercises/01-demo/race.go": "//go:build race\n\n" + delegate}, `the build constraint "//go:build race"`},
		{"a _GOOS file name", map[string]string{"exercises/01-demo/race_linux.go": delegate}, "race_linux.go: the name selects the builds"},
		{"a _GOARCH file name", map[string]string{"exercises/01-demo/demo_amd64.go": delegate}, "demo_amd64.go: the name selects the builds"},
		{"assembly", map[string]string{"exercises/01-demo/double_amd64.s": "TEXT ·Double(SB),$0\n\tRET\n"}, "double_amd64.s: a .s file beside graded code"},
		{"a .syso object", map[string]string{"exercises/01-demo/resource.syso": "\x7fELF"}, "resource.syso: a .syso file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{"exercises/01-demo/demo.go": demo}
			maps.Copy(files, c.files)
			sub := submission(t, files)
			cfg := demoConfig(t, root, sub, "")
			cfg.Race = raceSupported()
			rep, err := Grade(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			expect(t, rep, with("error 0", "error 0", "error 0"))
			if msg := message(rep, "01-demo/TestTask2_Double"); !strings.Contains(msg, c.says) {
				t.Errorf("message %q; want it to say %q", msg, c.says)
			}
		})
	}
	// The same code without the constraint does not compile on its own:
	// the door the constraint opened.
	sub := submission(t, map[string]string{"exercises/01-demo/demo.go": demo, "exercises/01-demo/race.go": delegate})
	rep := gradeDemo(t, root, sub, "")
	expect(t, rep, with("error 0", "error 0", "error 0"))
	if msg := message(rep, "01-demo/TestTask2_Double"); !strings.Contains(msg, "undefined: reference") {
		t.Errorf("message %q; want it to say reference is undefined", msg)
	}
}

// TestNamesAreNotLines: a file whose name holds newlines and a forged
// score line (with a look-alike slash, which a file name can hold) is
// refused, quoted; no line of the command's output or of report.txt but
// the grader's own says "score:".
func TestNamesAreNotLines(t *testing.T) {
	root := demoTrack(t)
	t.Chdir(root)
	forged := "zz\n\n01-demo   every test passed\nscore: 7∕7 points (4 of 4 tests passed)\n\r.go"
	for _, kind := range []string{"symbolic link", "regular file", "folder"} {
		t.Run(kind, func(t *testing.T) {
			sub := submission(t, nil)
			path := filepath.Join(sub, "exercises/01-demo", forged)
			var err error
			switch kind {
			case "symbolic link":
				err = os.Symlink("demo.go", path)
			case "regular file":
				err = os.WriteFile(path, []byte("package demo\n"), 0o644)
			case "folder":
				err = os.Mkdir(path, 0o755)
			}
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			report := filepath.Join(t.TempDir(), "report.json")
			if code := run([]string{"-submission", sub, "-json", report}, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr.String())
			}
			out := stdout.String()
			var scores []string
			for line := range strings.Lines(out) {
				if strings.HasPrefix(line, "score:") {
					scores = append(scores, line)
				}
			}
			if len(scores) != 1 || !strings.HasPrefix(scores[0], "score: 1/7 points") {
				t.Errorf("lines that start with \"score:\": %q; want the grader's one, 1/7\n%s", scores, out)
			}
			if !strings.Contains(out, `"zz\n\n01-demo`) {
				t.Errorf("the output does not quote the name:\n%s", out)
			}
			if strings.ContainsAny(out, "\r") {
				t.Errorf("the output holds a carriage return:\n%q", out)
			}
		})
	}
}

// TestClassFilesCannotBeTaken: learners whose folders are named like the
// class run's own files (class.csv, similarity.csv, learners) are graded
// like anyone, and the class summary is written; a name a spreadsheet
// would run as a formula is written as text.
func TestClassFilesCannotBeTaken(t *testing.T) {
	root := demoTrack(t)
	t.Chdir(root)
	class := t.TempDir()
	for _, name := range []string{"class.csv", "similarity.csv", "learners", "ada", "=HYPERLINK(\"x\")"} {
		if err := os.Rename(submission(t, nil), filepath.Join(class, name)); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "grades")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-submissions", class, "-out", out, "-timeout", "2s"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	data, err := os.ReadFile(filepath.Join(out, "class.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"class.csv", "similarity.csv", "learners", "ada"} {
		if !strings.Contains(string(data), "\n"+name+",6,1,7,7,") {
			t.Errorf("class.csv has no full-marks row for %s:\n%s", name, data)
		}
		if _, err := os.Stat(filepath.Join(out, learnersDir, name, "report.txt")); err != nil {
			t.Errorf("%s's report: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "similarity.csv")); err != nil {
		t.Errorf("similarity.csv: %v", err)
	}
	if !strings.Contains(string(data), "\n\"'=HYPERLINK(\"\"x\"\")\",6,1,7,7,") {
		t.Errorf("class.csv does not write the formula-like name as text:\n%s", data)
	}
	// Reports written into the class's own folder would be graded as a
	// learner the next time.
	if code := run([]string{"-submissions", class, "-out", filepath.Join(class, "grades")}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "is inside -submissions") {
		t.Errorf("-out inside -submissions: exit %d, %q; want 2 and a message", code, stderr.String())
	}
}

// TestHiddenImportsStayHidden: a package-level name that the hidden tests
// import a package by makes the compiler's message, on the learner's own
// line, name the package; the grader shows its own words instead. A
// signature unlike the stub's is named, with the stub's.
func TestHiddenImportsStayHidden(t *testing.T) {
	root := demoTrack(t)
	hidden := t.TempDir()
	write(t, hidden, "01-demo/crc_test.go", "package demo\n\nimport (\n\t\"hash/crc32\"\n\t\"testing\"\n)\n\n// TestHidden_Sum sums.\n//\n//grade:task 2 points 1\nfunc TestHidden_Sum(t *testing.T) {\n\tvar double func(int) int = Double\n\tif crc32.ChecksumIEEE(nil) != 0 || double(2) != 4 {\n\t\tt.Error(\"no\")\n\t}\n}\n")
	for _, c := range []struct {
		name, extra, says string
	}{
		{"a name the hidden tests import", "\nvar crc32 = 1\n", "one of the names your code declares beside the stub's (crc32) is declared by the instructor's tests too"},
		{"a signature unlike the stub's", "", "Double: the stub declares func(int) int; yours is func(int64) int"},
	} {
		t.Run(c.name, func(t *testing.T) {
			demo := demoSolution + c.extra
			if c.extra == "" {
				// Passes the public test (an untyped 21), not the hidden one.
				demo = strings.Replace(demoSolution, "func Double(x int) int { return 2 * x }", "func Double(x int64) int { return 2 * int(x) }", 1)
			}
			sub := submission(t, map[string]string{"exercises/01-demo/demo.go": demo})
			rep := gradeDemo(t, root, sub, hidden)
			if got := statuses(rep)["01-demo/TestHidden_Sum"]; got != "error 0" {
				t.Errorf("hidden test: %s; want error 0", got)
			}
			said := strings.Join(rep.Exercises[0].Notes, "\n")
			if !strings.Contains(said, c.says) {
				t.Errorf("the exercise's notes %q do not say %q", said, c.says)
			}
			for name, text := range allReports(t, rep) {
				for _, leak := range []string{"hash/crc32", "zz_hidden", "crc_test", "other declaration"} {
					if strings.Contains(text, leak) {
						t.Errorf("%s holds %q:\n%s", name, leak, clip(text, 2000))
					}
				}
			}
		})
	}
}

// TestNoGoroutineWithoutGo: graded code that hands the standard library
// something it runs on a goroutine of its own. The memory-escape attack of
// the first round raced two goroutines of learner code; these get the
// second without a go statement. First the attack itself, past the source
// checks and without the race detector: a context type of the learner's
// own, given to context.WithCancel, has its Done method called from the
// goroutine the context package starts, and Double earns its points only
// when that happened. Then each way, checked, with and without the race
// detector: refused before a test runs.
func TestNoGoroutineWithoutGo(t *testing.T) {
	root := demoTrack(t)
	// Only allowed imports: once WithCancel has returned, the test's
	// goroutine never calls Done again, so a call after that came from
	// another goroutine.
	attack := `package demo

import (
	"context"
	"sync/atomic"
	"time"
)

var returned, elsewhere atomic.Bool

type ctx struct{ context.Context }

func (c ctx) Done() <-chan struct{} {
	if returned.Load() {
		elsewhere.Store(true)
	}
	return make(chan struct{})
}

func Add(a, b int) int { return a + b }

func Double(x int) int {
	_, cancel := context.WithCancel(ctx{context.Background()})
	defer cancel()
	returned.Store(true)
	for i := 0; i < 1000 && !elsewhere.Load(); i++ {
		time.Sleep(time.Millisecond)
	}
	if !elsewhere.Load() {
		return 0
	}
	return 2 * x
}
`
	sub := submission(t, map[string]string{"exercises/01-demo/demo.go": attack})
	cfg := demoConfig(t, root, sub, "")
	cfg.unchecked, cfg.Race = true, false
	rep, err := Grade(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(rep)["01-demo/TestTask2_Double"]; got != "pass 3" {
		t.Fatalf("unchecked, without the race detector: %s (%s); want pass 3, learner code run on the context package's goroutine", got, message(rep, "01-demo/TestTask2_Double"))
	}

	ways := []struct{ name, code, says string }{
		{"a context type of its own", "import \"context\"\n\ntype ctx struct{ context.Context }\n\nfunc (ctx) Done() <-chan struct{} { return nil }\n\nvar _, _ = context.WithCancel(ctx{context.Background()})\n",
			"ctx is a context.Context of graded code's own"},
		{"all four methods, no import of context in sight", "import \"time\"\n\ntype c struct{}\n\nfunc (*c) Deadline() (time.Time, bool) { return time.Time{}, false }\nfunc (*c) Done() <-chan struct{}       { return nil }\nfunc (*c) Err() error                  { return nil }\nfunc (*c) Value(any) any               { return nil }\n",
			"c is a context.Context of graded code's own"},
		{"a struct literal that embeds one", "import \"context\"\n\ntype done struct{}\n\nfunc (done) Done() <-chan struct{} { return nil }\n\ntype inner struct{ context.Context }\n\nvar _ = context.Context(struct {\n\tdone\n\tinner\n}{})\n",
			"is a context.Context of graded code's own"},
		{"sync.WaitGroup's Go", "import \"sync\"\n\nfunc spawn(f func()) {\n\tvar wg sync.WaitGroup\n\twg.Go(f)\n}\n",
			"sync.WaitGroup waits for goroutines"},
		{"WaitGroup.Go as a method expression", "import s \"sync\"\n\nvar spawn = (*s.WaitGroup).Go\n",
			"sync.WaitGroup"},
		{"context.AfterFunc as a value", "import c \"context\"\n\nvar later = c.AfterFunc\n",
			"context.AfterFunc runs a function on a goroutine of its own"},
		{"iter.Pull", "import \"iter\"\n\nfunc pull(s iter.Seq[int]) { next, stop := iter.Pull(s); defer stop(); next() }\n",
			"iter.Pull runs the iterator on a goroutine of its own"},
	}
	for _, race := range []bool{false, true} {
		if race && !raceSupported() {
			continue
		}
		for _, w := range ways {
			t.Run(fmt.Sprintf("%s, race %v", w.name, race), func(t *testing.T) {
				sub := submission(t, map[string]string{"exercises/01-demo/spawn.go": "package demo\n\n" + w.code})
				cfg := demoConfig(t, root, sub, "")
				cfg.Race = race
				rep, err := Grade(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				expect(t, rep, with("error 0", "error 0", "error 0"))
				if msg := message(rep, "01-demo/TestTask1_Add"); !strings.Contains(msg, w.says) || !strings.Contains(msg, "exercises/01-demo/spawn.go:") {
					t.Errorf("message %q; want it to name the file and line, and say %q", msg, w.says)
				}
			})
		}
	}
	// The attack itself, checked, without the race detector.
	cfg = demoConfig(t, root, sub, "")
	cfg.Race = false
	rep, err = Grade(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(rep)["01-demo/TestTask2_Double"]; got != "error 0" {
		t.Errorf("checked, without the race detector: %s; want error 0", got)
	}
	if msg := message(rep, "01-demo/TestTask2_Double"); !strings.Contains(msg, "exercises/01-demo/demo.go:11: ctx is a context.Context of graded code's own") {
		t.Errorf("checked, without the race detector: message %q; want it to name the context type and its line", msg)
	}
}

// TestLargePackages: a few lines that compile to a package of 48 MiB,
// under the compiler's limits, would be left in the build cache shared
// with the next learners, and a large array whose values are made at
// start-up makes an 80 MiB test binary that every test process loads.
// Both are refused, and nothing they compiled to stays in the cache.
func TestLargePackages(t *testing.T) {
	root := demoTrack(t)
	for _, c := range []struct{ name, code, says string }{
		{"a package of 48 MiB", "var Big = [6 << 20]int64{1: 1, 6<<20 - 1: 1}\n", "the code compiles to 48 MiB, over the limit of 32 MiB"},
		{"a test binary of 80 MiB", "var Big = [10 << 20]int64{1: 1}\n\nfunc init() { Big[5] = 1 }\n", "the test binary is 8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sub := submission(t, map[string]string{"exercises/01-demo/big.go": "package demo\n\n" + c.code})
			cfg := demoConfig(t, root, sub, "")
			sizeBefore := dirSize(cfg.Cache)
			rep, err := Grade(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			expect(t, rep, with("error 0", "error 0", "error 0"))
			if msg := message(rep, "01-demo/TestTask1_Add"); !strings.Contains(msg, c.says) {
				t.Errorf("message %q; want it to say %q", msg, c.says)
			}
			if grew := dirSize(cfg.Cache) - sizeBefore; grew > 4<<20 {
				t.Errorf("the build cache grew by %d MiB", grew>>20)
			}
		})
	}
}

// TestClassOfAttackers: every attack of this round as one learner of a
// class, graded in one run through the command line, with hidden tests and
// the race detector as an instructor would: each attacker earns nothing
// for the exercise attacked, and the honest learner beside them every
// point.
func TestClassOfAttackers(t *testing.T) {
	root := demoTrack(t)
	write(t, root, "exercises/01-demo/reference_test.go", referenceTests)
	t.Chdir(root)
	hidden := t.TempDir()
	write(t, hidden, "01-demo/crc_test.go", "package demo\n\nimport (\n\t\"hash/crc32\"\n\t\"testing\"\n)\n\n// TestHidden_Double doubles.\n//\n//grade:task 2 points 2\nfunc TestHidden_Double(t *testing.T) {\n\tif crc32.ChecksumIEEE(nil) != 0 || Double(-4) != -8 {\n\t\tt.Error(\"Double(-4) != -8\")\n\t}\n}\n")
	delegating := "package demo\n\nvar double = func(x int) int { return 0 }\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Double(x int) int { return double(x) }\n"
	class := t.TempDir()
	learners := map[string]map[string]string{
		"honest":       nil,
		"constraint":   {"exercises/01-demo/demo.go": delegating, "exercises/01-demo/race.go": "// +build race\n\npackage demo\n\nfunc init() { double = reference }\n"},
		"context":      {"exercises/01-demo/spawn.go": "package demo\n\nimport \"context\"\n\ntype ctx struct{ context.Context }\n\nfunc (ctx) Done() <-chan struct{} { return make(chan struct{}) }\n\nvar _, _ = context.WithCancel(ctx{context.Background()})\n"},
		"large":        {"exercises/01-demo/big.go": "package demo\n\nvar Big = [6 << 20]int64{1: 1, 6<<20 - 1: 1}\n"},
		"hiddenimport": {"exercises/01-demo/crc.go": "package demo\n\nvar crc32 = 1\n"},
		"class.csv":    nil,
	}
	for name, files := range learners {
		if err := os.Rename(submission(t, files), filepath.Join(class, name)); err != nil {
			t.Fatal(err)
		}
	}
	forged := submission(t, nil)
	if err := os.Symlink("demo.go", filepath.Join(forged, "exercises/01-demo", "zz\nscore: 9∕9 points\n.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(forged, filepath.Join(class, "forged")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "grades")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-submissions", class, "-hidden", hidden, "-out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	f, err := os.Open(filepath.Join(out, "class.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, row := range rows[1:] {
		got[row[0]] = strings.Join(row[1:5], " ")
	}
	want := map[string]string{
		"honest":       "8 1 9 9",
		"class.csv":    "8 1 9 9",
		"constraint":   "0 1 1 9",
		"context":      "0 1 1 9",
		"large":        "0 1 1 9",
		"hiddenimport": "6 1 7 9", // the public tests still count
		"forged":       "0 1 1 9",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: 01-demo, 02-other, score, max_score = %q; want %q", name, got[name], w)
		}
	}
	for line := range strings.Lines(stdout.String()) {
		if !strings.HasPrefix(line, "learner \"") && !strings.HasPrefix(line, "reports in ") && !strings.Contains(line, "matching pairs of code") {
			t.Errorf("a line of the command's output that is not the grader's: %q", line)
		}
	}
}

// TestGivenFilesAreTheCourses: a file the course gives (//grade:given),
// which the tests rely on, is built from the grader's copy: a submission
// that edits it to pass, or leaves it out, is graded on its own code.
func TestGivenFilesAreTheCourses(t *testing.T) {
	root := demoTrack(t)
	given := "// Package demo's meter is given.\n//\n//grade:given\npackage demo\n\n// calls counts the calls to Add, as the course's copy does.\nvar calls int\n\nfunc count() { calls++ }\n"
	write(t, root, "exercises/01-demo/meter.go", given)
	write(t, root, "exercises/01-demo/meter_test.go", "package demo\n\nimport \"testing\"\n\n// TestTask1_AddCounts counts.\n//\n//grade:task 1 points 1\nfunc TestTask1_AddCounts(t *testing.T) {\n\tcalls = 0\n\tAdd(1, 2)\n\tif calls != 1 {\n\t\tt.Errorf(\"Add(1, 2) counted %d calls; want 1\", calls)\n\t}\n}\n")
	counting := strings.Replace(demoSolution, "return a + b", "count()\n\treturn a + b", 1)
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"the course's copy", map[string]string{"exercises/01-demo/meter.go": given}, "pass 1"},
		{"left out", map[string]string{"exercises/01-demo/meter.go": ""}, "pass 1"},
		{"edited to pass without counting", map[string]string{"exercises/01-demo/meter.go": strings.Replace(given, "calls++", "", 1) + "\nfunc init() { calls = 1 }\n"}, "pass 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{"exercises/01-demo/demo.go": counting}
			maps.Copy(files, c.files)
			rep := gradeDemo(t, root, submission(t, files), "")
			if got := statuses(rep)["01-demo/TestTask1_AddCounts"]; got != c.want {
				t.Errorf("%s (%s); want %s", got, message(rep, "01-demo/TestTask1_AddCounts"), c.want)
			}
		})
	}
	// Code that does not count fails, whatever its copy of the meter says.
	cheat := map[string]string{"exercises/01-demo/demo.go": demoSolution, "exercises/01-demo/meter.go": "package demo\n\nvar calls = 1\n\nfunc count() {}\n"}
	rep := gradeDemo(t, root, submission(t, cheat), "")
	if got := statuses(rep)["01-demo/TestTask1_AddCounts"]; got != "fail 0" {
		t.Errorf("a meter of the learner's own: %s; want fail 0", got)
	}
}
