package check

import (
	"fmt"
	"testing"
)

// recorder stands in for a *testing.T and keeps what a Limit reports.
type recorder struct {
	testing.TB
	errors []string
	failed bool
}

func (r *recorder) Helper() {}
func (r *recorder) Fail()   { r.failed = true }
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
	r.failed = true
}

func TestLimit(t *testing.T) {
	for _, c := range []struct {
		fails int
		want  []string
	}{
		{0, nil},
		{2, []string{"case 0", "case 1"}},
		{3, []string{"case 0", "case 1", "case 2"}},
		{7, []string{"case 0", "case 1", "case 2", "… and 4 more like these"}},
	} {
		r := &recorder{}
		l := NewLimit(r, 3)
		for i := range c.fails {
			l.Errorf("case %d", i)
		}
		if l.Count() != c.fails {
			t.Errorf("after %d failures, Count() = %d", c.fails, l.Count())
		}
		l.Close()
		if fmt.Sprint(r.errors) != fmt.Sprint(c.want) || r.failed != (c.fails > 0) {
			t.Errorf("%d failures with a limit of 3 reported %q (failed %v); want %q (failed %v)", c.fails, r.errors, r.failed, c.want, c.fails > 0)
		}
	}
}
