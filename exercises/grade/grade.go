package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Config says what to grade and how.
type Config struct {
	Root       string   // the grader's checkout: its tests are the ones run
	Submission string   // the learner's copy of the repository, or of its exercises/ folder
	Hidden     string   // instructor tests kept outside the submission, or ""
	Exercises  []string // names or numbers of the exercises to grade; none: all
	Jobs       int      // exercises graded at once
	Limits     Limits
}

// Report is the outcome of grading one submission.
type Report struct {
	Submission string
	Hidden     bool // hidden tests were run
	Exercises  []*ExerciseReport
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
	scratch, err := os.MkdirTemp("", "tokenbytoken-grade-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)

	rep := &Report{Submission: cfg.Submission, Hidden: cfg.Hidden != "", Exercises: make([]*ExerciseReport, len(track))}
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
			rep.Exercises[i], errs[i] = gradeExercise(ctx, cfg, filepath.Join(scratch, ex.Name), subs, ex, hidden[i])
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("grading stopped: %w", err)
	}
	return rep, nil
}

// gradeExercise reads, builds and runs one exercise of a submission.
func gradeExercise(ctx context.Context, cfg Config, scratch, subs string, ex *Exercise, hidden []string) (*ExerciseReport, error) {
	er := &ExerciseReport{Name: ex.Name}
	w := readWork(subs, ex)
	er.Notes = w.Notes
	all := func(status, msg string) *ExerciseReport {
		for _, t := range ex.Tests {
			er.Results = append(er.Results, Result{Test: t, Status: status, Message: msg})
		}
		return er
	}
	if w.Missing != "" {
		er.Missing = w.Missing
		return all(StatusMissing, w.Missing), nil
	}
	if w.Refused != "" {
		er.Compile = w.Refused
		return all(StatusError, "not built: "+firstLine(w.Refused)), nil
	}
	binary, compileErr, err := buildExercise(ctx, cfg.Root, scratch, ex, w, hidden)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ex.Name, err)
	}
	if compileErr != "" {
		er.Compile = compileErr
		return all(StatusError, "did not compile: "+firstLine(compileErr)), nil
	}
	dir, err := prepareRunDir(scratch, ex)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ex.Name, err)
	}
	for _, t := range ex.Tests {
		if ctx.Err() != nil {
			break
		}
		er.Results = append(er.Results, runTest(ctx, binary, dir, t, cfg.Limits))
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
			if !keep(res) {
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
