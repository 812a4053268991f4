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

// gradeClass grades every folder in dir as one learner's submission, writes
// each learner's reports to out/<learner>/ and a class summary, out/class.csv:
// a row per learner, a column of points per exercise, then the total. A
// submission that cannot be graded at all gets a row saying why.
func gradeClass(ctx context.Context, cfg Config, dir, out string, progress io.Writer) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("submissions: %w", err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	track, err := loadTrack(cfg.Root, cfg.Exercises)
	if err != nil {
		return err
	}
	var rows [][]string
	header := []string{"learner"}
	for _, ex := range track {
		header = append(header, ex.Name)
	}
	header = append(header, "score", "max_score", "note")
	rows = append(rows, header)
	learners := 0
	for _, e := range entries {
		if !e.IsDir() || e.Name()[0] == '.' {
			continue // files, symbolic links and hidden folders are not submissions
		}
		learners++
		c := cfg
		c.Submission = filepath.Join(dir, e.Name())
		rep, err := Grade(ctx, c)
		row := []string{e.Name()}
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			for range track {
				row = append(row, "")
			}
			rows = append(rows, append(row, "0", "", err.Error()))
			fmt.Fprintf(progress, "%s: not graded: %v\n", e.Name(), err)
			continue
		}
		for _, er := range rep.Exercises {
			earned, _ := er.points()
			row = append(row, strconv.Itoa(earned))
		}
		all := rep.All()
		rows = append(rows, append(row, strconv.Itoa(all.Score), strconv.Itoa(all.MaxScore), ""))
		learnerOut := filepath.Join(out, e.Name())
		if err := os.MkdirAll(learnerOut, 0o755); err != nil {
			return err
		}
		for _, f := range reportFiles {
			if err := writeReportFile(filepath.Join(learnerOut, f.name), rep, f.write); err != nil {
				return err
			}
		}
		fmt.Fprintf(progress, "%s: %d/%d\n", e.Name(), all.Score, all.MaxScore)
	}
	if learners == 0 {
		return fmt.Errorf("submissions: %s has no submission folders", dir)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.WriteAll(rows); err != nil {
		return err
	}
	return writeReportFile(filepath.Join(out, "class.csv"), nil, func(wr io.Writer, _ *Report) error {
		_, err := wr.Write(b.Bytes())
		return err
	})
}
