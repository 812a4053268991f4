package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// writeEvents writes the raw record of a grading: every test process's
// output as `go test -json` events, converted by `go tool test2json`, one JSON
// object per line, with the package field naming the exercise. It is a record
// of what the tests printed, for an instructor to look into; the verdicts in
// the other reports come from how each test process ended, not from these
// events, which graded code can imitate by printing.
func writeEvents(w io.Writer, rep *Report) error {
	for _, er := range rep.Exercises {
		for _, r := range er.Results {
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
			cmd := exec.Command("go", "tool", "test2json", "-t", "-p", er.Name)
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
		}
	}
	return nil
}
