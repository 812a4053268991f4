package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// writeProgress prints the learner's view: a row per exercise with tasks
// passed, points and the first failing test's message, then the totals.
func writeProgress(w io.Writer, rep *Report) error {
	if note := warning(rep); note != "" {
		if _, err := fmt.Fprintln(w, note); err != nil {
			return err
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "exercise\ttasks\tpoints\tfirst failure")
	tasksDone, tasksAll := 0, 0
	for _, er := range rep.Exercises {
		passed, total := er.tasks()
		earned, possible := er.points()
		tasksDone += passed
		tasksAll += total
		first := "all passed"
		if res, ok := er.firstFailure(); ok {
			first = fmt.Sprintf("task %d, %s: %s", res.Task, res.Name, clip(firstLine(res.Message), 110))
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%d/%d\t%s\n", er.Name, passed, total, earned, possible, first)
	}
	all := rep.All()
	fmt.Fprintf(tw, "total\t%d/%d\t%d/%d\t\n", tasksDone, tasksAll, all.Score, all.MaxScore)
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeProblems(w, rep)
}

// writeTests prints the grader's view: a row per test, then the totals.
func writeTests(w io.Writer, rep *Report) error {
	if note := warning(rep); note != "" {
		if _, err := fmt.Fprintln(w, note); err != nil {
			return err
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "exercise\ttask\ttest\tpoints\tstatus\tmessage")
	for _, er := range rep.Exercises {
		for _, res := range er.Results {
			name := displayName(res)
			fmt.Fprintf(tw, "%s\t%d\t%s\t%d/%d\t%s\t%s\n", er.Name, res.Task, name, res.Earned, res.Points, res.Status, clip(firstLine(res.Message), 110))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeProblems(w, rep); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, totalsLine(rep))
	return err
}

// writeProblems prints, once per exercise, what kept it from being built,
// and the files that were passed over.
func writeProblems(w io.Writer, rep *Report) error {
	// Every line a report prints starts with the grader's own words: what
	// graded code or a learner's names put in a note or a compiler's
	// message is indented below them, so it can never pass for the
	// grader's (a forged "score:" line).
	for _, note := range rep.Notes {
		if _, err := fmt.Fprintf(w, "\nnote: %s\n", indentRest(note)); err != nil {
			return err
		}
	}
	for _, er := range rep.Exercises {
		if er.Compile != "" {
			if _, err := fmt.Fprintf(w, "\n%s did not build:\n%s\n", er.Name, indent(er.Compile)); err != nil {
				return err
			}
		}
		for _, note := range er.Notes {
			if _, err := fmt.Fprintf(w, "%s: %s\n", er.Name, indentRest(note)); err != nil {
				return err
			}
		}
	}
	return nil
}

// totalsLine states the score, saying plainly whether hidden tests count.
func totalsLine(rep *Report) string {
	pub := rep.Public()
	if !rep.Hidden {
		return fmt.Sprintf("score: %d/%d points (%d of %d tests passed)", pub.Score, pub.MaxScore, pub.Passed, pub.Tests)
	}
	all := rep.All()
	return fmt.Sprintf("public tests: %d/%d; with hidden tests: %d/%d points (%d of %d tests passed)",
		pub.Score, pub.MaxScore, all.Score, all.MaxScore, all.Passed, all.Tests)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func indent(s string) string {
	return "    " + indentRest(s)
}

// indentRest indents every line of s but the first.
func indentRest(s string) string {
	return strings.ReplaceAll(s, "\n", "\n    ")
}

// clip shortens s to at most n runes for a table cell.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// displayName is a test's name as reports show it: marked when hidden, or
// when it is a self-check worth no points.
func displayName(r Result) string {
	switch {
	case r.Hidden:
		return r.Name + " (hidden)"
	case r.SelfCheck:
		return r.Name + " (self-check)"
	}
	return r.Name
}

// warning is what every report says first, or "".
func warning(rep *Report) string {
	if rep == nil {
		return ""
	}
	return rep.NoSandbox
}
