package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
)

// writeEvents writes the raw record of a grading: every test process's
// output as `go test -json` events, converted by `go tool test2json`, one JSON
// object per line, with the package field naming the exercise. It is a record
// of what the tests printed, for an instructor to look into; the verdicts in
// the other reports come from how each test process ended, not from these
// events, which graded code can imitate by printing.
func writeEvents(w io.Writer, rep *Report) error {
	if note := warning(rep); note != "" {
		line, err := json.Marshal(map[string]any{"Action": "output", "Output": note + "\n"})
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%s\n", line); err != nil {
			return err
		}
	}
	for _, er := range rep.Exercises {
		for _, r := range er.Results {
			if r.Hidden && !rep.HiddenDetails {
				action := "fail"
				if r.Status == StatusPass {
					action = "pass"
				}
				line, err := json.Marshal(map[string]any{
					"Action": action, "Package": er.Name, "Test": r.Name,
					"Output": fmt.Sprintf("hidden test: %s; what it printed is for the instructor (-hidden-details)\n", r.Status),
				})
				if err != nil {
					return err
				}
				if _, err := fmt.Fprintf(w, "%s\n", line); err != nil {
					return err
				}
				continue
			}
			if r.output == "" && r.Status != StatusPass && r.Status != StatusFail && r.Status != StatusTimeout {
				// Not run: say why, in the same format.
				line, err := json.Marshal(map[string]any{
					"Action": "skip", "Package": er.Name, "Test": r.Name,
					"Output": fmt.Sprintf("not run: %s: %s\n", r.Status, firstLine(r.Message)),
				})
				if err != nil {
					return err
				}
				if _, err := fmt.Fprintf(w, "%s\n", line); err != nil {
					return err
				}
				continue
			}
			cmd := test2json(er.Name)
			cmd.Stdin = strings.NewReader(r.output)
			var out bytes.Buffer
			cmd.Stdout = &out
			cmd.Stderr = &out
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("go tool test2json: %v: %s", err, out.String())
			}
			if _, err := w.Write(out.Bytes()); err != nil {
				return err
			}
			// Tests run quietly, so the record holds a passing test's
			// name only in the grader's verdict, which ends its events.
			action := "fail"
			if r.Status == StatusPass {
				action = "pass"
			}
			line, err := json.Marshal(map[string]any{"Action": action, "Package": er.Name, "Test": r.Name,
				"Elapsed": r.Duration.Seconds(), "Output": "grader: " + r.Status + "\n"})
			if err != nil {
				return err
			}
			if _, err := fmt.Fprintf(w, "%s\n", line); err != nil {
				return err
			}
		}
	}
	return nil
}

// test2jsonPath is where the go command keeps its test2json tool, found
// once: starting the tool through `go tool` for every test costs far more
// than starting its binary.
var test2jsonPath = sync.OnceValue(func() string {
	out, err := exec.Command("go", "tool", "-n", "test2json").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})

// test2json is the command that converts one test's output for exercise.
func test2json(exercise string) *exec.Cmd {
	if p := test2jsonPath(); p != "" {
		return exec.Command(p, "-t", "-p", exercise)
	}
	return exec.Command("go", "tool", "test2json", "-t", "-p", exercise)
}
