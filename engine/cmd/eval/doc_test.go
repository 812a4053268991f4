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
	if s := status([]string{"-h"}, io.Discard, &stderr); s != 0 {
		t.Fatalf("eval -h: status %d\n%s", s, stderr.String())
	}
	return stderr.String()
}

// TestDocFlags checks that doc.go lists the command's flags, with the
// values and defaults the command itself reports.
func TestDocFlags(t *testing.T) {
	cmddoc.CheckFlags(t, ".", help(t))
}

// TestShownCommandsParse checks that every command line for eval that the
// course's documents and this package's doc comment show parses with the
// real flags.
func TestShownCommandsParse(t *testing.T) {
	if cmds := cmddoc.CheckCommands(t, ".", "go run ./engine/cmd/eval", help(t)); len(cmds) == 0 {
		t.Error("no document shows a eval command")
	}
}
