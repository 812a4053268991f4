package cmddoc

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestParseDefaultsReadsPackageFlag parses what package flag itself prints
// for flags of every kind, with and without defaults, one-letter names and
// values named in backquotes.
func TestParseDefaultsReadsPackageFlag(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Int("n", 256, "most tokens")
	fs.Bool("v", false, "verbose")
	fs.Bool("race", true, "use the race detector")
	fs.Float64("temperature", 0.7, "sampling temperature;\nsecond line")
	fs.String("model", "default", "the model")
	fs.String("out", "", "write to `folder`")
	fs.Duration("timeout", 10*time.Second, "time limit")
	fs.Uint64("seed", 0, "seed")
	var buf bytes.Buffer
	fs.SetOutput(&buf)
	fs.Usage = func() {
		buf.WriteString("Usage: x [flags]\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse([]string{"-h"}); err != flag.ErrHelp {
		t.Fatalf("Parse(-h) = %v, want flag.ErrHelp", err)
	}
	got, err := ParseDefaults(buf.String())
	if err != nil {
		t.Fatal(err)
	}
	want := []Flag{
		{Name: "model", Arg: "string", Default: `"default"`},
		{Name: "n", Arg: "int", Default: "256"},
		{Name: "out", Arg: "folder"},
		{Name: "race", Default: "true"},
		{Name: "seed", Arg: "uint"},
		{Name: "temperature", Arg: "float", Default: "0.7"},
		{Name: "timeout", Arg: "duration", Default: "10s"},
		{Name: "v"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseDefaults of\n%s\n= %+v\nwant %+v", buf.String(), got, want)
	}
}

func TestParseDefaultsWithoutFlags(t *testing.T) {
	if _, err := ParseDefaults("Usage: x\n"); err == nil {
		t.Error("ParseDefaults of a help text with no flags gave no error")
	}
}

const sampleDoc = `Command x does things.

Usage:

	go run ./x [flags]

The flags are:

	-n int
		Most tokens. (default 256)
	-json
		Print JSON.
	-j int
		Jobs at once. (default: one per CPU)

Exit status: 0 on success.
`

func TestDocFlags(t *testing.T) {
	got, err := DocFlags(sampleDoc)
	if err != nil {
		t.Fatal(err)
	}
	want := []Flag{
		{Name: "n", Arg: "int", Default: "256"},
		{Name: "json"},
		{Name: "j", Arg: "int", Described: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DocFlags = %+v, want %+v", got, want)
	}
	if _, err := DocFlags("Command x does things.\n"); err == nil {
		t.Error("DocFlags of a comment without a flag list gave no error")
	}
}

func TestCompare(t *testing.T) {
	documented, err := DocFlags(sampleDoc)
	if err != nil {
		t.Fatal(err)
	}
	real := []Flag{
		{Name: "n", Arg: "int", Default: "128"},
		{Name: "json", Arg: "string"},
		{Name: "j", Arg: "int", Default: "2"},
		{Name: "seed", Arg: "uint"},
	}
	got := Compare(documented, real)
	want := []string{
		`-n: documented default "256", the command says "128"`,
		`-json: documented as taking "", the command says "string"`,
		`-seed is a flag of the command but not documented`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Compare = %q\nwant %q", got, want)
	}
	real = []Flag{{Name: "n", Arg: "int", Default: "256"}, {Name: "json"}, {Name: "j", Arg: "int", Default: "2"}}
	if got := Compare(documented, real); len(got) != 0 {
		t.Errorf("Compare of matching lists = %q, want nothing", got)
	}
	got = Compare(documented, real[:2])
	if want := []string{"-j is documented but the command has no such flag"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Compare = %q, want %q", got, want)
	}
}

func TestWords(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
	}{
		{`go run ./x -prompt "func main() {" -n 8`, []string{"go", "run", "./x", "-prompt", "func main() {", "-n", "8"}},
		{`go test ./y -run '^$'  -bench X`, []string{"go", "test", "./y", "-run", "^$", "-bench", "X"}},
		{`x "a \"b\" c" d"e"f`, []string{"x", `a "b" c`, "def"}},
		{`x ""`, []string{"x", ""}},
	} {
		got, err := Words(c.line)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Words(%s) = %q, %v; want %q", c.line, got, err, c.want)
		}
	}
	for _, bad := range []string{`x "a`, `x 'a`} {
		if _, err := Words(bad); err == nil {
			t.Errorf("Words(%s): no error for an unbalanced quote", bad)
		}
	}
}

func TestShown(t *testing.T) {
	md := "# Title\n" +
		"Run `make lab` or `go run ./x -n 2`, not `-n 2` alone.\n" +
		"```sh\n" +
		"make test   # every check\n" +
		"go run ./x -a \\\n" +
		"    -b \"# not a comment\"\n" +
		"```\n" +
		"```text\n" +
		"make nothing\n" +
		"```\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "R.md"), []byte(md), 0o666); err != nil {
		t.Fatal(err)
	}
	got, err := Shown(dir, []string{"R.md"}, "make ", "go run ")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range got {
		lines = append(lines, c.String()+" "+strings.Join(c.Args, "|"))
	}
	want := []string{
		"R.md:2: make lab make|lab",
		"R.md:2: go run ./x -n 2 go|run|./x|-n|2",
		"R.md:4: make test make|test",
		`R.md:5: go run ./x -a  -b "# not a comment" go|run|./x|-a|-b|# not a comment`,
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("Shown =\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestFlagSetParsesAsTheCommandWould(t *testing.T) {
	flags := []Flag{{Name: "n", Arg: "int"}, {Name: "json"}, {Name: "out", Arg: "folder"}, {Name: "timeout", Arg: "duration"}}
	for _, ok := range [][]string{{"-n", "3", "-json", "FILE"}, {"-out", "DIR", "-timeout", "2s"}} {
		if err := FlagSet("x", flags).Parse(ok); err != nil {
			t.Errorf("Parse(%q): %v", ok, err)
		}
	}
	for _, bad := range [][]string{{"-m"}, {"-n", "three"}, {"-out"}, {"-timeout", "2"}} {
		if err := FlagSet("x", flags).Parse(bad); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
}
