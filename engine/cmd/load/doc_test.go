package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"testing"

	"github.com/tokenbytoken/course/kernel/cmddoc"
)

// help returns what the command prints for -h.
func help(t *testing.T) string {
	t.Helper()
	var stderr bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, io.Discard, &stderr); err != nil && !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("load -h: %v\n%s", err, stderr.String())
	}
	return stderr.String()
}

// TestDocumentation checks doc.go's flags against the command's own, and
// every command line for it that the course's documents show.
func TestDocumentation(t *testing.T) {
	cmddoc.CheckCommand(t, "./engine/cmd/load", help(t))
}
