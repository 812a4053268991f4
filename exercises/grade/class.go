package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tokenbytoken/course/exercises/grade/internal/similar"
)

// reportFiles are the files written for every graded submission: the
// readable table and each machine format.
var reportFiles = []struct {
	name  string
	write func(io.Writer, *Report) error
}{
	{"report.txt", writeTests},
	{"report.json", writeJSON},
	{"junit.xml", writeJUnit},
	{"summary.md", writeMarkdown},
	{"classroom.json", writeClassroom},
	{"events.json", writeEvents},
}

// writeReportFile writes a report to path through a temporary file in the
// same folder, renamed into place once complete, so no reader ever sees half a
// report.
func writeReportFile(path string, rep *Report, write func(io.Writer, *Report) error) error {
	var b bytes.Buffer
	if err := write(&b, rep); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// learnersDir is the folder of a class run's output that holds a folder of
// reports per learner: apart from the class's own files, so that no
// learner's folder name can take theirs.
const learnersDir = "learners"

// gradeClass grades every folder in dir as one learner's submission, writes
// each learner's reports to out/learners/<learner>/ and a class summary, out/class.csv:
// a row per learner, a column of points per exercise, the total, and the
// learners and reference solutions whose code theirs matches. Every match
// is listed in out/similarity.csv, and in the learner's reports. A
// submission that cannot be graded at all gets a row saying why.
func gradeClass(ctx context.Context, cfg Config, dir, out string, progress io.Writer) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("submissions: %w", err)
	}
	if absOut, absDir := absPath(out), absPath(dir); inside(absDir, absOut) || absOut == absDir {
		return usageError{fmt.Sprintf("-out %s is inside -submissions %s: the reports would be graded as a learner's folder; write them elsewhere", out, dir)}
	}
	if err := os.MkdirAll(filepath.Join(out, learnersDir), 0o755); err != nil {
		return err
	}
	track, err := loadTrack(cfg.Root, cfg.Exercises)
	if err != nil {
		return err
	}
	type learner struct {
		name string
		rep  *Report
		err  error
	}
	var learners []learner
	for _, e := range entries {
		if !e.IsDir() || e.Name()[0] == '.' {
			continue // files, symbolic links and hidden folders are not submissions
		}
		// A name is data: quoted in every line printed, and a name that
		// does not print (a newline in it would start a line of its own)
		// is not graded, and says why.
		if !printable(e.Name()) {
			err := fmt.Errorf("not graded: the folder's name %q has characters that do not print (a newline, a control character): rename it", e.Name())
			learners = append(learners, learner{e.Name(), nil, err})
			fmt.Fprintf(progress, "learner %q: %v\n", e.Name(), err)
			continue
		}
		c := cfg
		c.Submission = filepath.Join(dir, e.Name())
		rep, err := Grade(ctx, c)
		if err != nil && ctx.Err() != nil {
			return err
		}
		learners = append(learners, learner{e.Name(), rep, err})
		if err != nil {
			fmt.Fprintf(progress, "learner %q: not graded: %s\n", e.Name(), indentRest(cleanText(err.Error())))
		} else {
			all := rep.All()
			fmt.Fprintf(progress, "learner %q: %d/%d\n", e.Name(), all.Score, all.MaxScore)
		}
	}
	if len(learners) == 0 {
		return fmt.Errorf("submissions: %s has no submission folders", dir)
	}

	var names []string
	for _, l := range learners {
		if l.rep != nil {
			names = append(names, l.name)
		}
	}
	pairs := copies(cfg.Root, dir, names, track)
	matches := map[string][]string{} // learner → what their code matches
	for _, p := range pairs {
		what := fmt.Sprintf("%s: %s %.2f", p.Exercise, p.B, p.Match.Score)
		matches[p.A] = append(matches[p.A], what)
		if p.B != similar.Reference {
			matches[p.B] = append(matches[p.B], fmt.Sprintf("%s: %s %.2f", p.Exercise, p.A, p.Match.Score))
		}
	}

	var rows [][]string
	if note := cfg.noSandboxNote(); note != "" {
		rows = append(rows, []string{note})
	}
	header := []string{"learner"}
	for _, ex := range track {
		header = append(header, ex.Name)
	}
	header = append(header, "score", "max_score", "matches", "note")
	rows = append(rows, header)
	for _, l := range learners {
		row := []string{l.name}
		if !printable(l.name) {
			row[0] = strconv.Quote(l.name)
		}
		if l.err != nil {
			for range track {
				row = append(row, "")
			}
			rows = append(rows, append(row, "0", "", strings.Join(matches[l.name], "; "), cleanText(l.err.Error())))
			continue
		}
		for _, er := range l.rep.Exercises {
			earned, _ := er.points()
			row = append(row, strconv.Itoa(earned))
		}
		all := l.rep.All()
		rows = append(rows, append(row, strconv.Itoa(all.Score), strconv.Itoa(all.MaxScore), strings.Join(matches[l.name], "; "), ""))
		for _, p := range pairs {
			if p.A == l.name || p.B == l.name {
				other, mine, theirs := p.B, p.Match.A, p.Match.B
				if p.B == l.name {
					other, mine, theirs = p.A, p.Match.B, p.Match.A
				}
				if other == similar.Reference {
					other = "the reference solution"
				}
				l.rep.Notes = append(l.rep.Notes, fmt.Sprintf("%s: the code matches %s's (score %.2f, %d shared fingerprints: %s against %s); names and formatting aside, it is the same code",
					p.Exercise, other, p.Match.Score, p.Match.Shared, spans(mine), spans(theirs)))
			}
		}
		learnerOut := filepath.Join(out, learnersDir, l.name)
		if err := os.MkdirAll(learnerOut, 0o755); err != nil {
			return err
		}
		for _, f := range reportFiles {
			if err := writeReportFile(filepath.Join(learnerOut, f.name), l.rep, f.write); err != nil {
				return err
			}
		}
	}
	if err := writeCSV(filepath.Join(out, "class.csv"), rows); err != nil {
		return err
	}
	sim := [][]string{{"exercise", "learner", "matches", "score", "shared", "lines", "their_lines"}}
	for _, p := range pairs {
		sim = append(sim, []string{p.Exercise, p.A, p.B, fmt.Sprintf("%.2f", p.Match.Score), strconv.Itoa(p.Match.Shared), spans(p.Match.A), spans(p.Match.B)})
	}
	if err := writeCSV(filepath.Join(out, "similarity.csv"), sim); err != nil {
		return err
	}
	if len(pairs) > 0 {
		fmt.Fprintf(progress, "%d matching pairs of code: see %s\n", len(pairs), filepath.Join(out, "similarity.csv"))
	}
	return nil
}

// copies compares the learners' code for every exercise with each other's
// and with the reference solution in solutions/, leaving out the stubs
// everyone starts from, and returns the pairs that match.
func copies(root, dir string, learners []string, track []*Exercise) []similar.Pair {
	var pairs []similar.Pair
	for _, ex := range track {
		stubs := map[string][]byte{}
		for _, name := range ex.Stubs {
			if data, err := readRegular(filepath.Join(ex.Dir, name), maxFileBytes); err == nil {
				stubs[name] = data
			}
		}
		base := similar.NewBase(stubs)
		var reference *similar.Fingerprint
		if sol := readWork(filepath.Join(root, "solutions"), ex); sol.Missing == "" {
			reference = similar.Of(sol.Files, base)
		}
		prints := map[string]*similar.Fingerprint{}
		for _, name := range learners {
			subs, err := submissionExercises(filepath.Join(dir, name))
			if err != nil {
				continue
			}
			if w := readWork(subs, ex); w.Missing == "" {
				prints[name] = similar.Of(w.Files, base)
			}
		}
		pairs = append(pairs, similar.Class(ex.Name, prints, reference, similar.Threshold, similar.MinShared)...)
	}
	return pairs
}

// spans lists line ranges for a report: "softmax.go:3-40, quiz.go:1-9".
func spans(ss []similar.Span) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.String()
	}
	return strings.Join(out, ", ")
}

// writeCSV writes rows as a CSV file, whole (see writeReportFile). A cell
// that a spreadsheet would read as a formula (it starts with =, +, -, @, a
// tab or a carriage return: a learner's folder can be named so) is written
// with a leading apostrophe, which spreadsheets show as text.
func writeCSV(path string, rows [][]string) error {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	for _, row := range rows {
		safe := make([]string, len(row))
		for i, cell := range row {
			safe[i] = cell
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				safe[i] = "'" + cell
			}
		}
		if err := w.Write(safe); err != nil {
			return err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return writeReportFile(path, nil, func(wr io.Writer, _ *Report) error {
		_, err := wr.Write(b.Bytes())
		return err
	})
}

// absPath is path made absolute, or path itself when it cannot be.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}
