//go:build unix

package gguf_test

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	. "github.com/tokenbytoken/course/engine/gguf"
)

// TestHasMagicOpensNoPipe: a named pipe and a device are not GGUF, and
// HasMagic returns at once rather than wait for a writer or read forever.
func TestHasMagicOpensNoPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "m.gguf")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, path := range []string{fifo, "/dev/zero"} {
		done := make(chan bool, 1)
		go func() { done <- HasMagic(path) }()
		select {
		case got := <-done:
			if got {
				t.Errorf("HasMagic(%s) = true", path)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("HasMagic(%s) is still waiting", path)
		}
	}
}
