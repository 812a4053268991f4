// Command testreport turns the output of `go test -json` into what a person
// running `make test` should read, and keeps the rest in files:
//
//   - on stdout, the closing line of every package, as go test prints it
//     ("ok  	pkg	1.2s", "FAIL	pkg	3.4s", "?   	pkg	[no test files]"),
//     the whole output of every failing test and of every build that
//     failed, and go test's final "FAIL" line when anything failed;
//   - with -log FILE, everything go test printed, as `go test -v` shows it;
//   - with -skipped FILE, which tests were skipped and why (the message
//     each passed to t.Skip), grouped by reason.
//
// -quiet REGEXP drops the "no test files" line of the packages it matches
// (make test: the reference solutions, which have no tests of their own).
//
// Usage: go test -json ./... | go run ./kernel/testreport -log go-test.log -skipped skipped.txt
//
// The exit status is 1 if a test, a package or a build failed, else 0.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// event is one line of `go test -json` (see `go doc test2json`).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output and build-fail events
}

func main() {
	logPath := flag.String("log", "", "write everything go test printed to this file")
	skippedPath := flag.String("skipped", "", "write the skipped tests and their reasons to this file")
	quiet := flag.String("quiet", "", "drop the 'no test files' lines of packages matching this regular expression")
	module := flag.String("module", "", "module path to leave out of the package names in the -skipped list")
	flag.Parse()
	var quietRE *regexp.Regexp
	if *quiet != "" {
		var err error
		if quietRE, err = regexp.Compile(*quiet); err != nil {
			fmt.Fprintf(os.Stderr, "testreport: -quiet: %v\n", err)
			os.Exit(2)
		}
	}
	var logW io.Writer = io.Discard
	if *logPath != "" {
		f, err := os.Create(*logPath)
		if err != nil {
			fmt.Fprintf(os.Stderr, "testreport: %v\n", err)
			os.Exit(2)
		}
		defer f.Close()
		logW = f
	}
	r := newReport(os.Stdout, logW, quietRE)
	r.module = *module
	if err := r.read(os.Stdin); err != nil {
		fmt.Fprintf(os.Stderr, "testreport: %v\n", err)
		os.Exit(2)
	}
	r.finish()
	if *skippedPath != "" {
		if err := os.WriteFile(*skippedPath, []byte(r.skippedText()), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "testreport: %v\n", err)
			os.Exit(2)
		}
	}
	if r.failed {
		os.Exit(1)
	}
}

// report follows the event stream.
type report struct {
	out, log io.Writer
	quiet    *regexp.Regexp
	module   string // left out of package names in skippedText
	failed   bool

	output  map[string][]string // output of each test (package + "\x00" + test) so far
	builds  map[string][]string // build output of each import path
	skipped []skip
	pkgs    map[string]bool // packages whose closing line was seen
}

// skip is one skipped test.
type skip struct {
	pkg, test, reason string
}

func newReport(out, log io.Writer, quiet *regexp.Regexp) *report {
	return &report{out: out, log: log, quiet: quiet, output: map[string][]string{}, builds: map[string][]string{}, pkgs: map[string]bool{}}
}

func (r *report) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// Not an event: go test's own text (a build error before
			// Go 1.24, "go: downloading"): keep it, and show it.
			text := string(line) + "\n"
			io.WriteString(r.log, text)
			if strings.HasPrefix(text, "FAIL") || strings.Contains(text, "#") || strings.Contains(text, ".go:") {
				io.WriteString(r.out, text)
			}
			continue
		}
		r.event(e)
	}
	return sc.Err()
}

func (r *report) event(e event) {
	key := e.Package + "\x00" + e.Test
	switch e.Action {
	case "build-output":
		io.WriteString(r.log, e.Output)
		r.builds[e.ImportPath] = append(r.builds[e.ImportPath], e.Output)
	case "build-fail":
		r.failed = true
		io.WriteString(r.out, strings.Join(r.builds[e.ImportPath], ""))
	case "output":
		io.WriteString(r.log, e.Output)
		if e.Test != "" {
			r.output[key] = append(r.output[key], e.Output)
			return
		}
		// Package-level output: the closing line, or what a test binary
		// printed outside any test (a panic in TestMain, say).
		r.packageLine(e)
	case "fail":
		r.failed = true
		if e.Test != "" {
			io.WriteString(r.out, strings.Join(r.output[key], ""))
		}
	case "skip":
		if e.Test != "" {
			r.skipped = append(r.skipped, skip{e.Package, e.Test, skipReason(r.output[key])})
		}
	}
	if e.Test != "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
		delete(r.output, key)
	}
}

var closing = regexp.MustCompile(`^(ok  |FAIL|\?   )\t`)

// packageLine shows a package's closing line (unless it is a quiet
// package's "no test files"), and what a failing package printed outside
// its tests.
func (r *report) packageLine(e event) {
	text := e.Output
	switch {
	case closing.MatchString(text):
		r.pkgs[e.Package] = true
		if strings.HasPrefix(text, "?") && r.quiet != nil && r.quiet.MatchString(e.Package) {
			return
		}
		if strings.HasPrefix(text, "FAIL") {
			r.failed = true
		}
		io.WriteString(r.out, text)
	case text == "PASS\n" || text == "FAIL\n" || strings.HasPrefix(text, "=== ") || strings.HasPrefix(text, "--- PASS") || strings.HasPrefix(text, "--- SKIP") || strings.HasPrefix(text, "testing: warning: no tests to run"):
		// go test -v's bookkeeping
	default:
		// Printed outside any test: a panic, a TestMain, coverage.
		r.output[e.Package+"\x00"] = append(r.output[e.Package+"\x00"], text)
		if strings.HasPrefix(text, "panic:") || strings.HasPrefix(text, "--- FAIL") || strings.Contains(text, "[build failed]") {
			r.failed = true
		}
		if r.failed {
			io.WriteString(r.out, text)
		}
	}
}

// skipReason is what a skipped test printed: its t.Skip message without
// the file:line prefix, on one line.
func skipReason(lines []string) string {
	var msg []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		if m := fileLine.FindStringSubmatch(t); m != nil {
			t = m[1]
		}
		msg = append(msg, t)
	}
	if len(msg) == 0 {
		return "no reason given"
	}
	return strings.Join(msg, " ")
}

var fileLine = regexp.MustCompile(`^[\w.-]+\.go:\d+: (.*)$`)

// finish ends the output as go test does when something failed.
func (r *report) finish() {
	if r.failed {
		io.WriteString(r.out, "FAIL\n")
	}
}

// skippedText lists the skipped tests, grouped by package and reason.
func (r *report) skippedText() string {
	if len(r.skipped) == 0 {
		return ""
	}
	type group struct {
		pkg, reason string
		tests       []string
	}
	groups := map[string]*group{}
	var order []string
	for _, s := range r.skipped {
		k := s.pkg + "\x00" + s.reason
		if groups[k] == nil {
			groups[k] = &group{pkg: s.pkg, reason: s.reason}
			order = append(order, k)
		}
		groups[k].tests = append(groups[k].tests, s.test)
	}
	sort.Strings(order)
	var b strings.Builder
	noun := "tests"
	if len(r.skipped) == 1 {
		noun = "test"
	}
	fmt.Fprintf(&b, "skipped: %d %s\n", len(r.skipped), noun)
	for _, k := range order {
		g := groups[k]
		pkg := g.pkg
		if r.module != "" && pkg != r.module {
			pkg = strings.TrimPrefix(pkg, r.module+"/")
		}
		fmt.Fprintf(&b, "  %s: %s\n      %s\n", pkg, g.reason, strings.Join(g.tests, ", "))
	}
	return b.String()
}
