//go:build unix

package regular

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ok.txt")
	os.WriteFile(file, []byte("hello"), 0o644)
	link := filepath.Join(dir, "link.txt")
	os.Symlink(file, link)
	fifo := filepath.Join(dir, "fifo")
	haveFIFO := syscall.Mkfifo(fifo, 0o644) == nil

	for _, c := range []struct {
		path, want string
		skip       bool
	}{
		{file, "", false},
		{link, "", false},
		{dir, "is a directory", false},
		{fifo, "is a named pipe (FIFO)", !haveFIFO},
		{"/dev/zero", "is a character device", false},
		{filepath.Join(dir, "missing"), "no such file", false},
	} {
		if c.skip {
			continue
		}
		done := make(chan error, 1)
		go func() {
			_, err := ReadFile(c.path, 1<<20)
			done <- err
		}()
		select {
		case err := <-done:
			if c.want == "" && err != nil {
				t.Errorf("%s: %v", c.path, err)
			}
			if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Errorf("%s: got %v, want an error containing %q", c.path, err, c.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still blocked after 5 s", c.path)
		}
	}
	if _, err := ReadFile(file, 4); err == nil || !strings.Contains(err.Error(), "5 bytes, more than the 4") {
		t.Errorf("a file over the limit: %v", err)
	}
}
