// Package cli holds what the engine's commands (every one in engine/cmd)
// share about their command lines: an error type for usage mistakes, the
// exit status of every outcome, and the check that flags which do not
// apply to the run asked for are refused rather than ignored.
//
// Exit statuses: 0 for success (and -h), 2 for a usage error — a flag's
// value out of range, flags that do not go together, a stray argument —,
// 1 for everything else: a file that cannot be used, work that fails, and a
// panic, which is a bug, never the user's mistake.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strings"
)

// UsageError is a mistake on the command line.
type UsageError struct {
	Msg string
	// Shown reports that the mistake is on stderr already: the flag
	// package prints a flag it cannot parse, and the list of flags, before
	// Parse returns. Status then adds nothing but the exit status.
	Shown bool
}

// Error is the mistake, as the user should read it.
func (e UsageError) Error() string { return e.Msg }

// Usagef makes a UsageError.
func Usagef(format string, a ...any) error { return UsageError{Msg: fmt.Sprintf(format, a...)} }

// Status runs a command's work and turns its outcome into an exit status,
// printing the error on stderr as "name: message" (a usage error with a
// hint to run name -h, unless it is Shown already). special, if not nil,
// may claim an error for a status of its own (train's and cot's 130 for
// Ctrl-C).
func Status(name string, stderr io.Writer, special func(error) (int, bool), work func() error) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "%s: internal error (please report it): %v\n%s", name, r, debug.Stack())
			status = 1
		}
	}()
	err := work()
	var usage UsageError
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &usage):
		if !usage.Shown {
			fmt.Fprintf(stderr, "%s: %v\nRun '%s -h' for the flags.\n", name, err, name)
		}
		return 2
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	if special != nil {
		if s, ok := special(err); ok {
			return s
		}
	}
	return 1
}

// Parse parses args with fs, turning a flag the set does not know, or a
// value it cannot parse, into a UsageError. The flag package has printed
// that mistake and the flags to fs's output (the commands' stderr)
// already, so the error is marked Shown and Status prints no second copy.
// Parse returns the names of the flags given on the command line.
func Parse(fs *flag.FlagSet, args []string) (map[string]bool, error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, UsageError{Msg: err.Error(), Shown: true}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set, nil
}

// OnlyWith refuses the flags in names that were given although the flag
// they belong with (why) was not: "-prompt applies only with -funcs".
func OnlyWith(set map[string]bool, why string, names ...string) error {
	var stray []string
	for _, n := range names {
		if set[n] {
			stray = append(stray, "-"+n)
		}
	}
	if len(stray) == 0 {
		return nil
	}
	sort.Strings(stray)
	verb := "applies"
	if len(stray) > 1 {
		verb = "apply"
	}
	return Usagef("%s %s only %s", strings.Join(stray, ", "), verb, why)
}

// NoArgs refuses arguments left after the flags.
func NoArgs(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return Usagef("unexpected argument %q: every setting is a flag (a flag's value goes right after it)", fs.Arg(0))
	}
	return nil
}
