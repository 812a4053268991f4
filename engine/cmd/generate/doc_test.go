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

// TestDocFlags checks that doc.go lists the command's flags, with the
// values and defaults the command itself reports.
func TestDocFlags(t *testing.T) {
	cmddoc.CheckFlags(t, ".", help(t))
}

// TestShownCommandsParse checks that every generate command the course's
// documents and this package's doc comment show parses with the real flags.
func TestShownCommandsParse(t *testing.T) {
	if cmds := cmddoc.CheckCommands(t, ".", "go run ./engine/cmd/generate", help(t)); len(cmds) == 0 {
		t.Error("no document shows a generate command")
	}
}
