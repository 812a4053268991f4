// Package cmddoc keeps the course's documentation honest about its
// commands: a command's flags as its doc comment lists them must be the
// flags it really has, and every command line the READMEs show must be one
// it accepts.
//
// A command documents its flags in its package comment (doc.go), after a
// line "The flags are:", as package flag prints them: the flag and the
// name of its value on a line indented by one tab, what it does on lines
// indented by two, ending with the default the flag package reports:
//
//	The flags are:
//
//		-n int
//			Most new tokens to write. (default 256)
//		-json
//			Print one JSON object per token.
//
// A default that depends on the machine, or that the command computes, is
// described instead, in a sentence that starts "(default: ".
//
// Each command's own tests call CheckFlags with what it prints for -h, and
// CheckCommands to parse every command line the course's documents show for
// it; the kernel package's tests check that no shown command escapes both.
package cmddoc

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Flag is one flag: its name without the dash, the name of its value ("" for
// a boolean flag), and its default as package flag prints it ("" when it
// prints none).
type Flag struct {
	Name, Arg, Default string
	// Described reports, for a documented flag, that its default is
	// described in words rather than stated.
	Described bool
}

// Documents are the files, relative to the repository's root, whose shown
// commands are checked.
var Documents = []string{
	"README.md",
	"exercises/README.md",
	"kernel/README.md",
	"engine/models/MODEL_CARD.md",
}

var (
	// defaultsFlag is the first line of a flag in flag.PrintDefaults' output.
	defaultsFlag = regexp.MustCompile(`^  -(\S+)(?: (\S+))?(?:\t(.*))?$`)
	// docFlag is the first line of a flag in a doc comment's flag list.
	docFlag = regexp.MustCompile(`^\t-(\S+)(?: (\S+))?$`)
	// stated is the default package flag appends to a flag's usage.
	stated = regexp.MustCompile(`\(default (.*)\)$`)
)

// ParseDefaults reads the flags from a command's -h output, as
// flag.PrintDefaults writes them. Lines that are not part of the flag list
// (a usage line, a summary) are skipped.
func ParseDefaults(help string) ([]Flag, error) {
	var flags []Flag
	var usage []string
	flush := func() {
		if len(flags) > 0 {
			flags[len(flags)-1].Default = defaultIn(strings.Join(usage, " "))
		}
		usage = nil
	}
	inFlag := false
	for _, line := range strings.Split(help, "\n") {
		if m := defaultsFlag.FindStringSubmatch(line); m != nil {
			flush()
			flags = append(flags, Flag{Name: m[1], Arg: m[2]})
			usage = []string{m[3]}
			inFlag = true
			continue
		}
		if inFlag && strings.HasPrefix(line, "    \t") {
			usage = append(usage, strings.TrimPrefix(line, "    \t"))
			continue
		}
		inFlag = false
	}
	flush()
	if len(flags) == 0 {
		return nil, fmt.Errorf("no flags in the help text %q", firstLine(help))
	}
	return flags, nil
}

// defaultIn returns what "(default X)" at the end of usage states.
func defaultIn(usage string) string {
	if m := stated.FindStringSubmatch(strings.TrimSpace(usage)); m != nil {
		return m[1]
	}
	return ""
}

// PackageDoc returns the package comment of dir/doc.go as text, as go doc
// shows it.
func PackageDoc(dir string) (string, error) {
	path := filepath.Join(dir, "doc.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		return "", err
	}
	if f.Doc == nil {
		return "", fmt.Errorf("%s has no package comment", path)
	}
	return f.Doc.Text(), nil
}

// DocFlags reads the flag list that follows "The flags are:" in a package
// comment.
func DocFlags(doc string) ([]Flag, error) {
	i := strings.Index(doc, "\nThe flags are:\n")
	if i < 0 {
		return nil, errors.New(`the package comment has no "The flags are:" section`)
	}
	var flags []Flag
	var text []string
	flush := func() {
		if len(flags) > 0 {
			f := &flags[len(flags)-1]
			usage := strings.Join(text, " ")
			f.Default = defaultIn(usage)
			f.Described = strings.Contains(usage, "(default: ")
		}
		text = nil
	}
	for _, line := range strings.Split(doc[i+1:], "\n")[1:] {
		switch m := docFlag.FindStringSubmatch(line); {
		case m != nil:
			flush()
			flags = append(flags, Flag{Name: m[1], Arg: m[2]})
		case strings.HasPrefix(line, "\t\t") && len(flags) > 0:
			text = append(text, strings.TrimSpace(line))
		case line == "":
		default:
			// The list ends at the first line that is not indented.
			flush()
			return flags, nil
		}
	}
	flush()
	return flags, nil
}

// Compare lists, in words, how the documented flags differ from the real
// ones: a flag missing from either side, a value named differently, a
// default that is not the one package flag reports.
func Compare(documented, real []Flag) []string {
	var diffs []string
	doc := map[string]Flag{}
	for _, f := range documented {
		if _, dup := doc[f.Name]; dup {
			diffs = append(diffs, fmt.Sprintf("-%s is documented twice", f.Name))
		}
		doc[f.Name] = f
	}
	seen := map[string]bool{}
	for _, r := range real {
		seen[r.Name] = true
		d, ok := doc[r.Name]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("-%s is a flag of the command but not documented", r.Name))
		case d.Arg != r.Arg:
			diffs = append(diffs, fmt.Sprintf("-%s: documented as taking %q, the command says %q", r.Name, d.Arg, r.Arg))
		case d.Default != r.Default && !(d.Described && d.Default == ""):
			diffs = append(diffs, fmt.Sprintf("-%s: documented default %q, the command says %q", r.Name, d.Default, r.Default))
		}
	}
	for _, d := range documented {
		if !seen[d.Name] {
			diffs = append(diffs, fmt.Sprintf("-%s is documented but the command has no such flag", d.Name))
		}
	}
	return diffs
}

// CheckFlags fails t unless the flag list in dir/doc.go's package comment is
// the command's real flag list, taken from help, its -h output.
func CheckFlags(t testing.TB, dir, help string) {
	t.Helper()
	real, err := ParseDefaults(help)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := PackageDoc(dir)
	if err != nil {
		t.Fatal(err)
	}
	documented, err := DocFlags(doc)
	if err != nil {
		t.Fatalf("%s/doc.go: %v", dir, err)
	}
	for _, d := range Compare(documented, real) {
		t.Errorf("%s/doc.go: %s", dir, d)
	}
}

// Command is a command line shown in a document.
type Command struct {
	File string   // the document, relative to the repository's root
	Line int      // the line it starts on
	Text string   // the command as shown, continuation lines joined
	Args []string // its words, as the shell would split them
}

func (c Command) String() string { return fmt.Sprintf("%s:%d: %s", c.File, c.Line, c.Text) }

// Root returns the repository's root: the nearest folder at or above dir
// that holds go.mod.
func Root(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod at or above %s", abs)
		}
	}
}

// Shown returns every command line in the files (relative to root): each
// line of a ```sh block, and each inline code span that begins with one of
// the prefixes. Comments after # are dropped; a line ending in a backslash
// continues on the next.
func Shown(root string, files []string, prefixes ...string) ([]Command, error) {
	var all []Command
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return nil, err
		}
		cmds, err := shownIn(name, string(data), prefixes)
		if err != nil {
			return nil, err
		}
		all = append(all, cmds...)
	}
	return all, nil
}

var inlineCode = regexp.MustCompile("`([^`\n]+)`")

func shownIn(name, text string, prefixes []string) ([]Command, error) {
	var cmds []Command
	add := func(line int, s string) error {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil
		}
		args, err := Words(s)
		if err != nil {
			return fmt.Errorf("%s:%d: %v", name, line, err)
		}
		if len(args) > 0 {
			cmds = append(cmds, Command{File: name, Line: line, Text: s, Args: args})
		}
		return nil
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	inSh, inOther := false, false
	var pending string
	pendingLine := 0
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			switch {
			case inSh || inOther:
				inSh, inOther = false, false
			case trimmed == "```sh":
				inSh = true
			default:
				inOther = true
			}
			continue
		}
		if inOther {
			continue
		}
		if inSh {
			if pending == "" {
				pendingLine = n
			}
			cont := strings.HasSuffix(trimmed, `\`)
			pending += strings.TrimSuffix(withoutComment(trimmed), `\`) + " "
			if !cont {
				if err := add(pendingLine, pending); err != nil {
					return nil, err
				}
				pending = ""
			}
			continue
		}
		for _, m := range inlineCode.FindAllStringSubmatch(line, -1) {
			for _, p := range prefixes {
				if strings.HasPrefix(m[1], p) {
					if err := add(n, m[1]); err != nil {
						return nil, err
					}
					break
				}
			}
		}
	}
	return cmds, sc.Err()
}

// withoutComment drops a shell comment: a # outside quotes that starts a
// word.
func withoutComment(line string) string {
	quote := byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return strings.TrimSpace(line[:i])
		}
	}
	return line
}

// Words splits a command line into words as sh does for plain words and
// words in single or double quotes (a double-quoted word may escape " and
// \ with a backslash).
func Words(line string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unbalanced ' in %s", line)
			}
			word.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			j := i + 1
			for ; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' && j+1 < len(line) && (line[j+1] == '"' || line[j+1] == '\\') {
					j++
				}
				word.WriteByte(line[j])
			}
			if j == len(line) {
				return nil, fmt.Errorf("unbalanced \" in %s", line)
			}
			i = j
			inWord = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// FlagSet returns a flag set with the given flags, each taking a value of
// its kind, to parse a shown command line as the command would: an unknown
// flag, a missing value or a malformed number is an error.
func FlagSet(name string, flags []Flag) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(discard{})
	for _, f := range flags {
		switch f.Arg {
		case "":
			fs.Bool(f.Name, false, "")
		case "int":
			fs.Int(f.Name, 0, "")
		case "uint":
			fs.Uint64(f.Name, 0, "")
		case "float":
			fs.Float64(f.Name, 0, "")
		case "duration":
			fs.Duration(f.Name, 0, "")
		default:
			fs.String(f.Name, "", "")
		}
	}
	return fs
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// CheckCommands fails t unless every command line that the documents and
// the package comment of dir/doc.go show beginning with prefix (such as
// "go run ./engine/cmd/eval") parses with the command's real flags, taken
// from help, its -h output. It returns the arguments of each, after the
// prefix, for the caller to run where it can.
func CheckCommands(t testing.TB, dir, prefix, help string) []Command {
	t.Helper()
	real, err := ParseDefaults(help)
	if err != nil {
		t.Fatal(err)
	}
	root, err := Root(dir)
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := Shown(root, Documents, prefix+" ", prefix)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := PackageDoc(dir)
	if err != nil {
		t.Fatal(err)
	}
	own, err := shownIn(filepath.Join(dir, "doc.go")+", package comment", docExamples(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range own {
		own[i].Line-- // the fence docExamples added
	}
	cmds = append(cmds, own...)
	want, err := Words(prefix)
	if err != nil {
		t.Fatal(err)
	}
	var mine []Command
	for _, c := range cmds {
		if len(c.Args) < len(want) || strings.Join(c.Args[:len(want)], " ") != strings.Join(want, " ") {
			continue
		}
		c.Args = c.Args[len(want):]
		if err := FlagSet(prefix, real).Parse(c.Args); err != nil {
			t.Errorf("%s: %v", c, err)
		}
		mine = append(mine, c)
	}
	return mine
}

// docExamples turns the indented command lines of a package comment that
// start with "go " (with their continuation lines) into a ```sh block, so
// that shownIn reads them; the fence adds a line before the comment's
// first.
func docExamples(doc string) string {
	var b strings.Builder
	b.WriteString("```sh\n")
	cont := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "\tgo ") || cont && strings.HasPrefix(line, "\t") {
			b.WriteString(line[1:] + "\n")
			cont = strings.HasSuffix(line, `\`)
		} else {
			b.WriteString("\n")
			cont = false
		}
	}
	b.WriteString("```\n")
	return b.String()
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// CheckCommand is the documentation test of the command in the current
// directory, whose folder is pkg ("./engine/cmd/bench") and whose -h output
// is help: its doc.go lists its real flags (CheckFlags), and every command
// line for it that the course's documents show parses with them
// (CheckCommands), at least one being shown.
func CheckCommand(t *testing.T, pkg, help string) {
	t.Helper()
	t.Run("flags", func(t *testing.T) { CheckFlags(t, ".", help) })
	t.Run("shown", func(t *testing.T) {
		if len(CheckCommands(t, ".", "go run "+pkg, help)) == 0 {
			t.Errorf("no document shows a %s command", filepath.Base(pkg))
		}
	})
}
