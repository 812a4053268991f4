package main

import (
	"bytes"
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
	if err := run([]string{"-h"}, io.Discard, &stderr); err != nil && !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("tokenize -h: %v\n%s", err, stderr.String())
	}
	return stderr.String()
}

// TestDocFlags checks that doc.go lists the command's flags, with the
// values and defaults the command itself reports.
func TestDocFlags(t *testing.T) {
	cmddoc.CheckFlags(t, ".", help(t))
}

// TestShownCommandsParse checks that every command line for tokenize that the
// course's documents and this package's doc comment show parses with the
// real flags.
func TestShownCommandsParse(t *testing.T) {
	if cmds := cmddoc.CheckCommands(t, ".", "go run ./engine/cmd/tokenize", help(t)); len(cmds) == 0 {
		t.Error("no document shows a tokenize command")
	}
}
