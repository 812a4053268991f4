package memory

import (
	"math"
	"runtime/debug"
	"strings"
	"testing"
)

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0 B"}, {999, "999 B"}, {1000, "1.0 kB"}, {46_000_000, "46.0 MB"}, {275_000_000_000, "275.0 GB"}, {math.MaxInt64, "9.2 EB"}} {
		if got := Format(c.n); got != c.want {
			t.Errorf("Format(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

// TestGoLimit checks that the Go runtime's soft limit is one of the limits
// and that Check names it and both numbers.
func TestGoLimit(t *testing.T) {
	old := debug.SetMemoryLimit(64 << 20)
	defer debug.SetMemoryLimit(old)
	l := Available()
	if l.Bytes > 64<<20 {
		t.Fatalf("with a 64 MiB Go limit, Available() = %v", l)
	}
	if err := Check("nothing much", 1); err != nil {
		t.Errorf("one byte refused: %v", err)
	}
	err := Check("the KV cache for 1048576 positions", 1<<40)
	if err == nil {
		t.Fatal("1 TiB under a 64 MiB limit was not refused")
	}
	for _, want := range []string{"the KV cache for 1048576 positions", "1.1 TB", "GOMEMLIMIT"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if err := Check("an overflowed count", -5); err == nil || !strings.Contains(err.Error(), "more bytes than an int64") {
		t.Errorf("a negative (overflowed) need: %v", err)
	}
}
