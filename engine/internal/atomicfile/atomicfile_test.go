package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestWriteReplacesOrLeavesAlone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.bin")
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "first"); return err }); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("stat: %v, mode %v; want a 0644 file", err, fi.Mode())
	}
	// A failing fill leaves the old content and no temporary file.
	boom := errors.New("boom")
	err = Write(path, func(w io.Writer) error { io.WriteString(w, "half"); return boom })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v should wrap the fill's error and name %s", err, path)
	}
	if b, _ := os.ReadFile(path); string(b) != "first" {
		t.Fatalf("file holds %q after a failed write, want %q", b, "first")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("%d entries in the directory, want only the file", len(entries))
	}
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "second"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "second" {
		t.Fatalf("file holds %q, want %q", b, "second")
	}
}

// TestCleanRemovesWhatDeadWritersLeft plays a killed save: a temporary
// named for a process that no longer runs is removed by the next Write;
// one of a running process (this one, or the parent) is left alone.
func TestCleanRemovesWhatDeadWritersLeft(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "target.ckpt")
	dead := filepath.Join(dir, ".target.ckpt.tmp-999999999-123") // above any Linux pid_max
	live := filepath.Join(dir, ".target.ckpt.tmp-"+strconv.Itoa(os.Getppid())+"-456")
	other := filepath.Join(dir, ".draft.ckpt.tmp-999999999-789")
	for _, p := range []string{dead, live, other} {
		os.WriteFile(p, []byte("half a checkpoint"), 0o600)
	}
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "whole"); return err }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead writer's temporary is still there (%v)", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a running writer's temporary was removed: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("Write(%s) removed another file's temporary: %v", path, err)
	}
	if removed := CleanDir(dir); len(removed) != 1 || removed[0] != other {
		t.Errorf("CleanDir removed %v, want only %s", removed, other)
	}
}
