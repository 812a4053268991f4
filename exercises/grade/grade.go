package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Config says what to grade and how.
type Config struct {
	Root       string   // the grader's checkout: its tests are the ones run
	Submission string   // the learner's copy of the repository, or of its exercises/ folder
	Hidden     string   // instructor tests kept outside the submission, or ""
	Exercises  []string // names or numbers of the exercises to grade; none: all
	Jobs       int      // exercises graded at once
	Limits     Limits

	// Sandbox runs every process that compiles or runs learner code; nil
	// only when the instructor asked for no sandbox (NoSandbox).
	Sandbox   *Sandbox
	NoSandbox bool
	ownCode   bool // no sandbox could be made, and the checkout grades its own code
	// Cache is the grader's own build cache, kept apart from the user's
	// and trimmed to cacheLimit after each grading.
	Cache string
	// Race builds the tests with the race detector.
	Race bool
	// Budget bounds the wall time of grading one submission, compilation
	// included: what is not done by then is not run, and scores nothing.
	Budget time.Duration
	// HiddenDetails shows what hidden tests printed in the reports. Off by
	// default, since graded code sees a hidden test's inputs and can make
	// its failure messages carry them.
	HiddenDetails bool

	// unchecked skips the source checks (imports, goroutines,
	// directives), so that the grader's own tests can hand the sandbox
	// code that does what the checks refuse. No command line sets it.
	unchecked bool
}

// Report is the outcome of grading one submission.
type Report struct {
	Submission    string
	Hidden        bool   // hidden tests were run
	HiddenDetails bool   // what hidden tests printed is shown
	NoSandbox     string // why learner code ran without a sandbox, or ""
	Exercises     []*ExerciseReport
	Notes         []string // about the submission as a whole
}

// ExerciseReport is one exercise's outcome.
type ExerciseReport struct {
	Name    string
	Missing string   // the submission lacks the exercise: why
	Compile string   // the learner's code was refused or did not compile: the compiler's first lines
	Notes   []string // files passed over
	Results []Result // one per test, public then hidden
}

// Grade grades one submission against the grader's own tests.
func Grade(ctx context.Context, cfg Config) (*Report, error) {
	// The sandbox shows folders at their own paths, which must be absolute.
	for _, p := range []*string{&cfg.Root, &cfg.Hidden, &cfg.Cache} {
		if *p != "" {
			abs, err := filepath.Abs(*p)
			if err != nil {
				return nil, err
			}
			*p = abs
		}
	}
	track, err := loadTrack(cfg.Root, cfg.Exercises)
	if err != nil {
		return nil, err
	}
	subs, err := submissionExercises(cfg.Submission)
	if err != nil {
		return nil, err
	}
	hidden := make([][]string, len(track))
	if cfg.Hidden != "" {
		if info, err := os.Stat(cfg.Hidden); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("hidden tests: %s is not a folder", cfg.Hidden)
		}
		for i, ex := range track {
			if hidden[i], err = ex.addHidden(cfg.Hidden); err != nil {
				return nil, err
			}
		}
	}
	if cfg.Sandbox == nil && !cfg.NoSandbox {
		return nil, errors.New("no sandbox to grade in")
	}
	// The budget counts from here: compiling and running are the learner's
	// time.
	budget := cfg.Budget
	if budget <= 0 {
		budget = defaultBudget
	}
	lctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	b, err := newBuilder(ctx, cfg)
	if err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp("", "tokenbytoken-grade-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	// Sandboxed test processes may run as another user, who needs to
	// reach their own binary and folder in here, and nothing more.
	if err := os.Chmod(scratch, 0o711); err != nil {
		return nil, err
	}

	rep := &Report{Submission: cfg.Submission, Hidden: cfg.Hidden != "", HiddenDetails: cfg.HiddenDetails,
		NoSandbox: cfg.noSandboxNote(), Exercises: make([]*ExerciseReport, len(track))}
	total, tooBig := 0, false
	works := make([]Work, len(track))
	for i, ex := range track {
		works[i] = readWork(subs, ex)
		if cfg.unchecked {
			works[i].Refused = ""
		}
		for _, data := range works[i].Files {
			total += len(data)
		}
		if total > maxSubmissionBytes && !tooBig {
			tooBig = true
			rep.Notes = append(rep.Notes, fmt.Sprintf("the submission's files pass %d MiB: exercises from %s on are not graded", maxSubmissionBytes>>20, ex.Name))
		}
		if tooBig && works[i].Missing == "" {
			works[i] = Work{Missing: fmt.Sprintf("not graded: the submission's files pass %d MiB", maxSubmissionBytes>>20)}
		}
	}
	jobs := max(cfg.Jobs, 1)
	sem := make(chan struct{}, jobs)
	errs := make([]error, len(track))
	var wg sync.WaitGroup
	for i, ex := range track {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			rep.Exercises[i], errs[i] = gradeExercise(ctx, lctx, cfg, b, filepath.Join(scratch, ex.Name), works[i], ex, hidden[i], budget)
		}()
	}
	wg.Wait()
	trimCache(cfg.Cache, cacheLimit)
	rep.finish()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("grading stopped: %w", err)
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// defaultBudget is the wall time one submission may take when the caller
// sets none: the whole track, honestly solved, grades in well under a
// minute.
const defaultBudget = 5 * time.Minute

// gradeExercise builds and runs one exercise of a submission. ctx is the
// grading's; lctx is ctx with the learner's time budget.
func gradeExercise(ctx, lctx context.Context, cfg Config, b builder, scratch string, w Work, ex *Exercise, hidden []string, budget time.Duration) (*ExerciseReport, error) {
	er := &ExerciseReport{Name: ex.Name}
	er.Notes = w.Notes
	all := func(status, msg string) *ExerciseReport {
		for _, t := range ex.Tests[len(er.Results):] {
			er.Results = append(er.Results, Result{Test: t, Status: status, Message: msg})
		}
		return er
	}
	outOfTime := fmt.Sprintf("not run: grading this submission passed its time budget of %s", budget)
	if w.Missing != "" {
		er.Missing = w.Missing
		return all(StatusMissing, w.Missing), nil
	}
	if w.Refused != "" {
		er.Compile = w.Refused
		return all(StatusError, "not built: "+firstLine(w.Refused)), nil
	}
	if err := os.MkdirAll(scratch, 0o711); err != nil {
		return nil, err
	}
	bt, err := buildExercise(lctx, b, scratch, ex, w, hidden)
	// What the learner's code compiled to serves no one else (see
	// removeArchives): gone once the tests have run.
	defer removeArchives(b.cache, bt.archives)
	if err != nil {
		if ctx.Err() == nil && lctx.Err() != nil {
			return all(StatusTimeout, outOfTime), nil
		}
		return nil, fmt.Errorf("%s: %w", ex.Name, err)
	}
	if bt.compileErr != "" {
		er.Compile = bt.compileErr
		return all(StatusError, "did not compile: "+firstLine(bt.compileErr)), nil
	}
	if bt.refused != "" {
		er.Compile = bt.refused
		return all(StatusError, "not built: "+firstLine(bt.refused)), nil
	}
	binary, hiddenErr := bt.binary, bt.hiddenErr
	dir, err := prepareRunDir(scratch, ex)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ex.Name, err)
	}
	if cfg.Sandbox != nil && cfg.Sandbox.asUser != nil {
		if err := os.Chown(dir, int(cfg.Sandbox.asUser.Uid), int(cfg.Sandbox.asUser.Gid)); err != nil {
			return nil, fmt.Errorf("%s: %w", ex.Name, err)
		}
	}
	if hiddenErr != "" {
		er.Notes = append(er.Notes, hiddenErr)
	}
	for _, t := range ex.Tests {
		if ctx.Err() != nil {
			break
		}
		if lctx.Err() != nil {
			return all(StatusTimeout, outOfTime), nil
		}
		if t.Hidden && hiddenErr != "" {
			er.Results = append(er.Results, Result{Test: t, Status: StatusError, Message: hiddenBuildMessage})
			continue
		}
		res := runTest(lctx, cfg.Sandbox, binary, dir, t, cfg.Limits)
		if ctx.Err() == nil && lctx.Err() != nil && res.Status == StatusTimeout {
			res.Message = outOfTime
		}
		er.Results = append(er.Results, res)
		if res.initHang {
			// Every test starts with the same initialisation: the rest
			// would hang the same way.
			return all(StatusTimeout, res.Message), nil
		}
	}
	return er, nil
}

// Totals of a report or a part of it.
type Totals struct {
	Score, MaxScore int
	Passed, Tests   int
}

// totals adds up the results that keep says to count.
func (r *Report) totals(keep func(Result) bool) Totals {
	var t Totals
	for _, er := range r.Exercises {
		for _, res := range er.Results {
			if !keep(res) || res.SelfCheck {
				continue
			}
			t.Score += res.Earned
			t.MaxScore += res.Points
			t.Tests++
			if res.Status == StatusPass {
				t.Passed++
			}
		}
	}
	return t
}

// All, Public and HiddenOnly are the three totals a report states.
func (r *Report) All() Totals { return r.totals(func(Result) bool { return true }) }
func (r *Report) Public() Totals {
	return r.totals(func(res Result) bool { return !res.Hidden })
}
func (r *Report) HiddenOnly() Totals {
	return r.totals(func(res Result) bool { return res.Hidden })
}

// tasks counts an exercise's tasks and those passed: a task is passed when
// every one of its tests passed.
func (er *ExerciseReport) tasks() (passed, total int) {
	ok := map[int]bool{}
	for _, res := range er.Results {
		prev, seen := ok[res.Task]
		ok[res.Task] = (!seen || prev) && res.Status == StatusPass
	}
	for _, p := range ok {
		total++
		if p {
			passed++
		}
	}
	return passed, total
}

// points adds up an exercise's earned and possible points.
func (er *ExerciseReport) points() (earned, possible int) {
	for _, res := range er.Results {
		earned += res.Earned
		possible += res.Points
	}
	return earned, possible
}

// firstFailure is the first test that did not pass, if any.
func (er *ExerciseReport) firstFailure() (Result, bool) {
	for _, res := range er.Results {
		if res.Status != StatusPass {
			return res, true
		}
	}
	return Result{}, false
}

// noSandboxNote is what every report says first when learner code ran
// without a sandbox, or "".
func (cfg Config) noSandboxNote() string {
	switch {
	case cfg.Sandbox != nil:
		return ""
	case cfg.ownCode:
		return "note: graded without a sandbox (bubblewrap is not available here): fine for your own code in your own checkout; an instructor grades submissions in one"
	}
	return sandboxNote
}
