package cli

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

// TestStatus: every outcome's exit status and what goes to stderr.
func TestStatus(t *testing.T) {
	errSpecial := errors.New("interrupted")
	special := func(err error) (int, bool) { return 130, errors.Is(err, errSpecial) }
	for _, c := range []struct {
		name   string
		work   func() error
		status int
		stderr string
	}{
		{"success", func() error { return nil }, 0, ""},
		{"help", func() error { return flag.ErrHelp }, 0, ""},
		{"usage", func() error { return Usagef("-n = %d: must be at least 1", 0) }, 2, "cmd: -n = 0: must be at least 1\nRun 'cmd -h' for the flags.\n"},
		{"usage shown", func() error { return UsageError{Msg: "flag provided but not defined: -x", Shown: true} }, 2, ""},
		{"failure", func() error { return errors.New("no such file") }, 1, "cmd: no such file\n"},
		{"special", func() error { return errSpecial }, 130, "cmd: interrupted\n"},
		{"panic", func() error { panic("bug") }, 1, "cmd: internal error (please report it): bug\n"},
	} {
		var stderr bytes.Buffer
		status := Status("cmd", &stderr, special, c.work)
		if status != c.status || !strings.HasPrefix(stderr.String(), c.stderr) || c.stderr == "" && stderr.Len() > 0 {
			t.Errorf("%s: status %d, stderr %q; want %d, %q", c.name, status, stderr.String(), c.status, c.stderr)
		}
	}
}

// TestParse: a flag the set cannot parse is a usage error that the flag
// package has printed, once, with the flags; -h is flag.ErrHelp.
func TestParse(t *testing.T) {
	var stderr bytes.Buffer
	fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
	fs.SetOutput(&stderr)
	n := fs.Int("n", 1, "how many")
	set, err := Parse(fs, []string{"-n", "3"})
	if err != nil || !set["n"] || *n != 3 {
		t.Fatalf("Parse(-n 3) = %v, %v; n = %d", set, err, *n)
	}
	for _, args := range [][]string{{"-x"}, {"-n", "many"}} {
		stderr.Reset()
		_, err := Parse(fs, args)
		var usage UsageError
		if !errors.As(err, &usage) || !usage.Shown || !strings.Contains(stderr.String(), usage.Msg) || !strings.Contains(stderr.String(), "how many") {
			t.Errorf("Parse(%q) = %#v; stderr %q: want a shown UsageError, printed with the flags", args, err, stderr.String())
		}
		stderr.Reset()
		if status := Status("cmd", &stderr, nil, func() error { return err }); status != 2 || stderr.Len() != 0 {
			t.Errorf("Status of Parse(%q)'s error: %d, %q; want 2 and nothing more on stderr", args, status, stderr.String())
		}
	}
	if _, err := Parse(fs, []string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("Parse(-h) = %v, want flag.ErrHelp", err)
	}
}
