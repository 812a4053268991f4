package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/jstemmer/go-junit-report/v2/junit"
)

// The machine-readable reports. Each is written whole to a file (see
// writeReportFile), so a reader never sees half of one.

// jsonScore is a score and its maximum.
type jsonScore struct {
	Score    int `json:"score"`
	MaxScore int `json:"max_score"`
}

type jsonTest struct {
	Exercise  string `json:"exercise"`
	Task      int    `json:"task"`
	Name      string `json:"name"`
	Status    string `json:"status"`
	Points    int    `json:"points"`
	MaxPoints int    `json:"max_points"`
	Message   string `json:"message"`
	Hidden    bool   `json:"hidden"`
	SelfCheck bool   `json:"self_check,omitempty"`
}

type jsonReport struct {
	Warning  string     `json:"warning,omitempty"`
	Score    int        `json:"score"`
	MaxScore int        `json:"max_score"`
	Public   jsonScore  `json:"public"`
	Hidden   jsonScore  `json:"hidden"`
	Tests    []jsonTest `json:"tests"`
}

// writeJSON writes the report as one JSON object: the totals, public and
// hidden totals, and every test.
func writeJSON(w io.Writer, rep *Report) error {
	all, pub, hid := rep.All(), rep.Public(), rep.HiddenOnly()
	out := jsonReport{
		Warning: warning(rep),
		Score:   all.Score, MaxScore: all.MaxScore,
		Public: jsonScore{pub.Score, pub.MaxScore},
		Hidden: jsonScore{hid.Score, hid.MaxScore},
		Tests:  []jsonTest{},
	}
	for _, er := range rep.Exercises {
		for _, r := range er.Results {
			out.Tests = append(out.Tests, jsonTest{
				Exercise: er.Name, Task: r.Task, Name: r.Name, Status: r.Status,
				Points: r.Earned, MaxPoints: r.Points, Message: r.Message, Hidden: r.Hidden, SelfCheck: r.SelfCheck,
			})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// writeJUnit writes JUnit XML: a test suite per exercise, a test case per
// test, the points as properties.
func writeJUnit(w io.Writer, rep *Report) error {
	suites := junit.Testsuites{Name: "exercises"}
	for i, er := range rep.Exercises {
		suite := junit.Testsuite{Name: er.Name, ID: i, Package: modulePath + "/exercises/" + er.Name}
		earned, possible := er.points()
		suite.AddProperty("points", strconv.Itoa(earned))
		suite.AddProperty("max_points", strconv.Itoa(possible))
		var total float64
		for _, r := range er.Results {
			name := displayName(r)
			suite.AddProperty("points."+r.Name, fmt.Sprintf("%d/%d", r.Earned, r.Points))
			secs := r.Duration.Seconds()
			total += secs
			tc := junit.Testcase{
				Name:      name,
				Classname: fmt.Sprintf("%s.task%d", er.Name, r.Task),
				Time:      fmt.Sprintf("%.3f", secs),
				SystemOut: &junit.Output{Data: fmt.Sprintf("task %d, %d of %d points", r.Task, r.Earned, r.Points)},
			}
			switch r.Status {
			case StatusPass:
			case StatusFail:
				tc.Failure = &junit.Result{Message: firstLine(r.Message), Type: r.Status, Data: r.Message}
			default:
				tc.Error = &junit.Result{Message: firstLine(r.Message), Type: r.Status, Data: r.Message}
			}
			suite.AddTestcase(tc)
		}
		suite.Time = fmt.Sprintf("%.3f", total)
		if er.Compile != "" {
			suite.SystemErr = &junit.Output{Data: er.Compile}
		}
		suites.AddSuite(suite)
	}
	// Written by hand rather than with WriteXML so that, graded without a
	// sandbox, the warning can come first, as a comment before the root.
	var b bytes.Buffer
	if note := warning(rep); note != "" {
		fmt.Fprintf(&b, "<!-- %s -->\n", strings.ReplaceAll(note, "--", "- -"))
	} else {
		b.WriteString(xml.Header)
	}
	enc := xml.NewEncoder(&b)
	enc.Indent("", "\t")
	if err := enc.Encode(suites); err != nil {
		return err
	}
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}

// writeMarkdown writes a summary for a CI job page: the totals first, then
// a row per exercise, then what failed.
func writeMarkdown(w io.Writer, rep *Report) error {
	var b bytes.Buffer
	if note := warning(rep); note != "" {
		fmt.Fprintf(&b, "> **%s**\n\n", note) // the grader's own words
	}
	all := rep.All()
	fmt.Fprintf(&b, "## Exercises: %d/%d points\n\n", all.Score, all.MaxScore)
	fmt.Fprintf(&b, "%s\n\n", totalsLine(rep))
	b.WriteString("| exercise | tasks | points | first failure |\n| --- | --- | --- | --- |\n")
	for _, er := range rep.Exercises {
		passed, total := er.tasks()
		earned, possible := er.points()
		first := "all passed"
		if r, ok := er.firstFailure(); ok {
			first = fmt.Sprintf("task %d, %s %s: %s", r.Task, mdText(r.Name), r.Status, mdCell(firstLine(r.Message)))
		}
		fmt.Fprintf(&b, "| %s | %d/%d | %d/%d | %s |\n", er.Name, passed, total, earned, possible, first)
	}
	var failed []string
	for _, er := range rep.Exercises {
		if er.Compile != "" {
			failed = append(failed, fmt.Sprintf("<details><summary>%s did not build</summary>\n\n%s\n</details>\n", er.Name, mdLines(er.Compile)))
		}
		for _, r := range er.Results {
			if r.Status == StatusPass || er.Compile != "" || er.Missing != "" {
				continue
			}
			failed = append(failed, fmt.Sprintf("- %s task %d %s, %s, 0/%d: %s", er.Name, r.Task, mdText(displayName(r)), r.Status, r.Points, mdCell(firstLine(r.Message))))
		}
	}
	if len(failed) > 0 {
		b.WriteString("\n### Not passed yet\n\n" + strings.Join(failed, "\n") + "\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// mdCell is a message, clipped, for a Markdown table.
func mdCell(s string) string { return mdText(clip(s, 160)) }

// mdLines is a multi-line message for Markdown: each line escaped, lines
// kept apart.
func mdLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		lines[i] = mdText(line)
	}
	return strings.Join(lines, "<br>\n")
}

type classroomTest struct {
	Name          string `json:"name"`
	Status        string `json:"status"`
	Message       string `json:"message"`
	Score         int    `json:"score"`
	MaxScore      int    `json:"max_score"`
	ExecutionTime string `json:"execution_time"`
}

type classroomReport struct {
	Warning  string          `json:"warning,omitempty"`
	Version  int             `json:"version"`
	Status   string          `json:"status"`
	MaxScore int             `json:"max_score"`
	Tests    []classroomTest `json:"tests"`
}

// writeClassroom writes the result JSON that GitHub Classroom's autograding
// reporter reads (base64-encoded, in the environment variable
// <RUNNER>_RESULTS): a score per test, so partial credit shows.
func writeClassroom(w io.Writer, rep *Report) error {
	all := rep.All()
	out := classroomReport{Warning: warning(rep), Version: 1, Status: "pass", MaxScore: all.MaxScore, Tests: []classroomTest{}}
	if all.Passed < all.Tests {
		out.Status = "fail"
	}
	for _, er := range rep.Exercises {
		for _, r := range er.Results {
			status := "pass"
			if r.Status == StatusError || r.Status == StatusTimeout || r.Status == StatusMissing {
				status = "error"
			} else if r.Status != StatusPass {
				status = "fail"
			}
			name := fmt.Sprintf("%s task %d: %s", er.Name, r.Task, displayName(r))
			out.Tests = append(out.Tests, classroomTest{
				Name: name, Status: status, Message: r.Message, Score: r.Earned, MaxScore: r.Points,
				ExecutionTime: fmt.Sprintf("%.2fs", r.Duration.Seconds()),
			})
		}
	}
	return json.NewEncoder(w).Encode(out)
}
