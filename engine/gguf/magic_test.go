package gguf_test

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/tokenbytoken/course/engine/gguf"
)

// TestHasMagic: a file that starts with "GGUF" has the magic, whatever
// follows; a llama2.c checkpoint, a file too short to hold it, a
// directory and a missing file do not.
func TestHasMagic(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, c := range []struct {
		path string
		want bool
	}{
		{file("m.gguf", encode(t, 3, everyValue(), everyTensor())), true},
		{file("header.gguf", []byte("GGUF")), true}, // Open would refuse it, saying why
		{file("llama2c.bin", []byte{0x20, 1, 0, 0, 0, 3, 0, 0}), false},
		{file("short", []byte("GGU")), false},
		{file("empty", nil), false},
		{dir, false},
		{filepath.Join(dir, "missing"), false},
	} {
		if got := HasMagic(c.path); got != c.want {
			t.Errorf("HasMagic(%s) = %v, want %v", filepath.Base(c.path), got, c.want)
		}
	}
}
