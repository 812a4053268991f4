package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("grade", flag.ContinueOnError)
	fs.SetOutput(stderr)
	submission := fs.String("submission", "", "grade this `folder`: a copy of the repository, or of its exercises/ folder (default: this checkout)")
	hidden := fs.String("hidden", "", "add the instructor's hidden tests from `folder`/<exercise>/*_test.go")
	jobs := fs.Int("j", runtime.NumCPU(), "grade this many exercises at once")
	timeout := fs.Duration("timeout", 10*time.Second, "time limit for each test")
	memory := fs.Int("memory", 2048, "memory limit for each test process, in `MiB`")
	tests := fs.Bool("tests", false, "show every test, not a row per exercise (the default with -submission; -tests=false for the rows)")
	minScore := fs.Int("min-score", -1, "exit with status 1 if the score is below `N` points")
	submissions := fs.String("submissions", "", "grade every subfolder of `folder` as one learner's submission; reports go to -out")
	outDir := fs.String("out", "grades", "with -submissions: write each learner's reports to `folder`/learners/<learner>/, and class.csv and similarity.csv to folder")
	budget := fs.Duration("budget", defaultBudget, "wall time one submission may take in all, compiling included; what is not done by then scores nothing")
	noSandbox := fs.Bool("no-sandbox", false, "run learner code without the bubblewrap sandbox (only for code you trust; every report then says so first)")
	race := fs.Bool("race", raceSupported(), "build the tests with the race detector: a data race fails its test")
	cache := fs.String("cache", "", "the grader's build `folder` (default: tokenbytoken/grade-build in the user's cache folder), trimmed to 2 GiB after each grading")
	hiddenDetails := fs.Bool("hidden-details", false, "show what failing hidden tests printed in the reports (graded code sees a hidden test's inputs and can make its messages carry them: for the instructor's eyes only)")
	files := map[string]*string{}
	for _, f := range []struct{ flag, file, what string }{
		{"json", "report.json", "the report as JSON (totals, public and hidden totals, every test)"},
		{"junit", "junit.xml", "the report as JUnit XML, for CI test reporters"},
		{"markdown", "summary.md", "a Markdown summary, for a CI job page"},
		{"classroom", "classroom.json", "the result JSON of GitHub Classroom's autograding reporter"},
		{"events", "events.json", "the raw record: every test's output as go test -json events"},
	} {
		files[f.file] = fs.String(f.flag, "", "write "+f.what+" to `file`")
	}
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./exercises/grade [flags] [exercise ...]")
		fmt.Fprintln(stderr, "Grades the exercises (all, or those named: 02-softmax or 02) and prints a table.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	cfg, err := configure(*submission, *hidden, *jobs, *timeout, *memory, fs.Args())
	if err == nil {
		self := *submission == "" && *submissions == ""
		err = configureSandbox(&cfg, *noSandbox, self, *race, *cache, *budget, *hiddenDetails)
	}
	if err != nil {
		fmt.Fprintln(stderr, "grade:", err)
		var ue usageError
		if errors.As(err, &ue) {
			return 2
		}
		return 3
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if cfg.NoSandbox {
		fmt.Fprintln(stderr, "grade:", cfg.noSandboxNote())
	}
	if *submissions != "" {
		if *submission != "" {
			fmt.Fprintln(stderr, "grade: -submission and -submissions do not go together: one learner, or a folder of them")
			return 2
		}
		if err := gradeClass(ctx, cfg, *submissions, *outDir, stdout); err != nil {
			fmt.Fprintln(stderr, "grade:", err)
			var ue usageError
			if errors.As(err, &ue) {
				return 2
			}
			return 3
		}
		fmt.Fprintf(stdout, "reports in %s, class summary in %s\n", filepath.Join(*outDir, learnersDir), filepath.Join(*outDir, "class.csv"))
		return 0
	}
	rep, err := Grade(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "grade:", err)
		var ue usageError
		if errors.As(err, &ue) {
			return 2
		}
		return 3
	}
	// The table goes out in one write: a notebook shows each write of a
	// cell's output as it comes, and would break the table's lines apart.
	perTest := *submission != ""
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "tests" {
			perTest = *tests
		}
	})
	var table bytes.Buffer
	if perTest {
		err = writeTests(&table, rep)
	} else {
		err = writeProgress(&table, rep)
	}
	if err == nil {
		_, err = stdout.Write(table.Bytes())
	}
	if err != nil {
		fmt.Fprintln(stderr, "grade:", err)
		return 3
	}
	for _, f := range reportFiles {
		if p := files[f.name]; p != nil && *p != "" {
			if err := writeReportFile(*p, rep, f.write); err != nil {
				fmt.Fprintln(stderr, "grade:", err)
				return 3
			}
		}
	}
	if *minScore >= 0 && rep.All().Score < *minScore {
		fmt.Fprintf(stderr, "grade: score %d is below the minimum of %d\n", rep.All().Score, *minScore)
		return 1
	}
	return 0
}

// configure checks the command line and finds the grader's checkout.
func configure(submission, hidden string, jobs int, timeout time.Duration, memory int, names []string) (Config, error) {
	switch {
	case jobs < 1 || jobs > 256:
		return Config{}, usageError{fmt.Sprintf("-j %d: want a number of exercises at once from 1 to 256", jobs)}
	case timeout <= 0 || timeout > time.Hour:
		return Config{}, usageError{fmt.Sprintf("-timeout %s: want a time limit per test above 0 and at most 1h", timeout)}
	case memory < 64 || memory > 1<<20:
		return Config{}, usageError{fmt.Sprintf("-memory %d: want a limit per test from 64 MiB to 1 TiB", memory)}
	}
	wd, err := os.Getwd()
	if err != nil {
		return Config{}, err
	}
	root, err := findRoot(wd)
	if err != nil {
		return Config{}, err
	}
	if submission == "" {
		submission = root
	}
	return Config{
		Root: root, Submission: submission, Hidden: hidden, Exercises: names, Jobs: jobs,
		Limits: Limits{Timeout: timeout, Memory: int64(memory) << 20},
	}, nil
}

// configureSandbox finds the sandbox (or notes its explicit absence) and
// sets the grading's other safeguards. Code from elsewhere (-submission,
// -submissions) is graded only in a sandbox or with an explicit
// -no-sandbox; a learner grading their own checkout (self) runs their own
// code, as go test would, so where no sandbox can be made they are graded
// without one, and told.
func configureSandbox(cfg *Config, noSandbox, self, race bool, cache string, budget time.Duration, hiddenDetails bool) error {
	if budget <= 0 || budget > 24*time.Hour {
		return usageError{fmt.Sprintf("-budget %s: want a time above 0 and at most 24h", budget)}
	}
	if cache == "" {
		dir, err := defaultCache()
		if err != nil {
			return fmt.Errorf("no folder for the build cache (%v): give one with -cache", err)
		}
		cache = dir
	}
	cfg.Cache, cfg.Race, cfg.Budget, cfg.HiddenDetails = cache, race, budget, hiddenDetails
	if noSandbox {
		cfg.NoSandbox = true
		return nil
	}
	sb, err := NewSandbox()
	if err != nil && self {
		cfg.NoSandbox, cfg.ownCode = true, true
		return nil
	}
	if err != nil {
		return err
	}
	cfg.Sandbox = sb
	return nil
}

// raceSupported says whether the race detector is available for this
// platform (the go command's own list, for the platforms a class uses).
func raceSupported() bool {
	switch runtime.GOOS + "/" + runtime.GOARCH {
	case "linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "freebsd/amd64":
		return true
	}
	return false
}
