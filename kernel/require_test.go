package kernel

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRequireNamesEverythingMissing runs kernel/require.sh on a PATH that
// has Go and the shell's tools but no Python, no Node.js, and a CHROMIUM
// that does not exist: make test must stop at once and name all three,
// with what to install.
func TestRequireNamesEverythingMissing(t *testing.T) {
	bin := t.TempDir()
	for _, tool := range []string{"go", "bash", "sed", "dirname", "timeout"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s not found: %v", tool, err)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(filepath.Join(bin, "bash"), "require.sh", "test")
	cmd.Env = append(os.Environ(), "PATH="+bin, "CHROMIUM=/nonexistent/chromium", "PYTHON=")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("want exit status 1, got %v:\n%s", err, out)
	}
	for _, want := range []string{
		"make test: this machine lacks what it needs:",
		"Python 3.11 or newer with pip and venv",
		"Node.js 20 or newer with npm",
		"CHROMIUM=/nonexistent/chromium is not an executable file",
		"Nothing was installed or run.",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "Go ") {
		t.Errorf("Go is on PATH, but the output asks for it:\n%s", out)
	}

	// make vet needs Go only: the same machine is fine for it.
	cmd = exec.Command(filepath.Join(bin, "bash"), "require.sh", "vet")
	cmd.Env = append(os.Environ(), "PATH="+bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("require.sh vet: %v\n%s", err, out)
	}
}
