package engine

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkEncode encodes 64 KiB of Go source with the built-in tokenizer.
func BenchmarkEncode(b *testing.B) {
	_, tok, err := courseModel()
	if err != nil {
		b.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "fmt", "print.go"))
	if err != nil {
		b.Skip(err)
	}
	for len(src) < 1<<16 {
		src = append(src, src...)
	}
	text := string(src[:1<<16])
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := tok.Encode(text, true, false); err != nil {
			b.Fatal(err)
		}
	}
}
