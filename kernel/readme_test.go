package kernel

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/kernel/cmddoc"
)

// TestShownCommandsAreChecked checks every command that README.md,
// exercises/README.md and kernel/README.md show, in sh blocks or inline:
// a make target must exist in the Makefile, a go test or go doc must name
// a package that exists (and -run a test it has), and a go run must be a
// command whose own tests parse every line the documents show for it
// (its doc_test.go, built on cmddoc.CheckCommands). Any other command
// would be unchecked, and fails.
func TestShownCommandsAreChecked(t *testing.T) {
	root, err := cmddoc.Root(".")
	if err != nil {
		t.Fatal(err)
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{"README.md", "exercises/README.md", "kernel/README.md"}
	cmds, err := cmddoc.Shown(root, docs, "make ", "go run ", "go test ", "go doc ", "curl ")
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) == 0 {
		t.Fatal("the READMEs show no commands")
	}
	for _, c := range cmds {
		a := c.Args
		switch {
		case a[0] == "make":
			for _, arg := range a[1:] {
				if strings.Contains(arg, "=") {
					continue // a variable
				}
				if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(arg) + `:`).Match(makefile) {
					t.Errorf("%s: the Makefile has no target %q", c, arg)
				}
			}
		case a[0] == "curl":
			// engine/serve's TestShownRequests sends each shown request
			// to the server and checks its answer.
			if !strings.Contains(c.Text, "http://127.0.0.1:8080/v1/") {
				t.Errorf("%s: a request shown must go to the serve command's own address, http://127.0.0.1:8080/v1/", c)
			}
		case len(a) >= 3 && a[0] == "go" && a[1] == "run":
			if _, err := os.Stat(filepath.Join(root, a[2], "doc_test.go")); err != nil {
				t.Errorf("%s: no doc_test.go checks the lines shown for %s: %v", c, a[2], err)
			}
		case len(a) >= 3 && a[0] == "go" && a[1] == "doc":
			if _, err := cmddoc.PackageDoc(filepath.Join(root, a[2])); err != nil {
				t.Errorf("%s: %v", c, err)
			}
		case len(a) >= 3 && a[0] == "go" && a[1] == "test":
			checkGoTest(t, root, c)
		default:
			t.Errorf("%s: no test checks this command", c)
		}
	}
}

// checkGoTest checks that a shown go test names a package folder with
// tests, and that its -run pattern, if any, selects some of them.
func checkGoTest(t *testing.T, root string, c cmddoc.Command) {
	t.Helper()
	tests, _ := filepath.Glob(filepath.Join(root, c.Args[2], "*_test.go"))
	if len(tests) == 0 {
		t.Errorf("%s: %s has no tests", c, c.Args[2])
		return
	}
	for i, arg := range c.Args {
		if arg != "-run" || i+1 == len(c.Args) {
			continue
		}
		run, err := regexp.Compile(c.Args[i+1])
		if err != nil {
			t.Errorf("%s: -run %q: %v", c, c.Args[i+1], err)
			return
		}
		names := regexp.MustCompile(`(?m)^func (Test\w*)\(`)
		for _, f := range tests {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range names.FindAllSubmatch(data, -1) {
				if run.Match(m[1]) {
					return
				}
			}
		}
		t.Errorf("%s: -run %q selects none of the tests in %s", c, c.Args[i+1], c.Args[2])
	}
}

// TestReadmeListsEveryLesson checks that the README's lessons table links
// every notebook and every exercise, so that a new lesson gets its row.
func TestReadmeListsEveryLesson(t *testing.T) {
	root, err := cmddoc.Root(".")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	notebooks, _ := filepath.Glob(filepath.Join(root, "notebooks", "*.ipynb"))
	exercises, _ := filepath.Glob(filepath.Join(root, "exercises", "[0-9][0-9]-*"))
	if len(notebooks) == 0 || len(exercises) == 0 {
		t.Fatalf("found %d notebooks and %d exercises", len(notebooks), len(exercises))
	}
	for _, p := range notebooks {
		if link := "(notebooks/" + filepath.Base(p) + ")"; !strings.Contains(string(readme), link) {
			t.Errorf("README.md's lessons table does not link %s", link)
		}
	}
	for _, p := range exercises {
		if link := "(exercises/" + filepath.Base(p) + "/)"; !strings.Contains(string(readme), link) {
			t.Errorf("README.md's lessons table does not link %s", link)
		}
	}
}
