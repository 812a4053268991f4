package main

import (
	"bytes"
	"io"
	"testing"

	"github.com/tokenbytoken/course/kernel/cmddoc"
)

// help returns what the command prints for -h.
func help(t *testing.T) string {
	t.Helper()
	var stderr bytes.Buffer
	if status := run([]string{"-h"}, io.Discard, &stderr); status != 0 {
		t.Fatalf("generate -h: status %d\n%s", status, stderr.String())
	}
	return stderr.String()
}

// TestDocumentation checks doc.go's flags against the command's own, and
// every command line for it that the course's documents show.
func TestDocumentation(t *testing.T) {
	cmddoc.CheckCommand(t, "./engine/cmd/generate", help(t))
}
