package main

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/tokenbytoken/course/kernel/cmddoc"
)

// help returns what the command prints for -h.
func help(t *testing.T) string {
	t.Helper()
	var stderr bytes.Buffer
	if s := status(context.Background(), []string{"-h"}, io.Discard, &stderr); s != 0 {
		t.Fatalf("train -h: status %d\n%s", s, stderr.String())
	}
	return stderr.String()
}

// TestDocumentation checks doc.go's flags against the command's own, and
// every command line for it that the course's documents show.
func TestDocumentation(t *testing.T) {
	cmddoc.CheckCommand(t, "./engine/cmd/train", help(t))
}
