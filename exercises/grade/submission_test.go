package main

import (
	"strings"
	"testing"
)

// TestRefusedNames: the names an exercise folder may hold, and why the
// others are refused.
func TestRefusedNames(t *testing.T) {
	for _, c := range []struct{ name, says string }{
		{"softmax.go", ""},
		{"linux.go", ""},        // a whole name is not a suffix
		{"x_linux_test.go", ""}, // tests are not graded
		{"README.md", ""},
		{"testdata", ""},
		{".hidden.s", ""}, // the go command passes it over
		{"x_linux.go", "selects the builds"},
		{"x_windows_arm64.go", "selects the builds"},
		{"x_wasm.go", "selects the builds"},
		{"x.s", "a .s file"},
		{"x.c", "a .c file"},
		{"x.syso", "a .syso file"},
		{"a\nb.go", `"a\nb.go": a name with characters that do not print`},
		{"a\rb.go", "do not print"},
		{"a\u202eb.go", "do not print"},
		{"a\u2028b.go", "do not print"},
		{"a\xffb.go", "do not print"},
		{"a\u00a0b.go", "do not print"},
	} {
		got := refusedName(c.name)
		if (c.says == "") != (got == "") || !strings.Contains(got, c.says) {
			t.Errorf("refusedName(%q) = %q; want %q", c.name, got, c.says)
		}
	}
}

// TestBuildConstraintComments: both forms, as the go command reads them,
// and comments that only mention one.
func TestBuildConstraintComments(t *testing.T) {
	for _, c := range []struct {
		comment string
		want    bool
	}{
		{"//go:build race", true},
		{"// +build race", true},
		{"//+build race", true},
		{"//\t +build linux", true},
		{"// a build constraint such as +build", false},
		{"/* +build race */", false}, // the go command reads only line comments
		{"// go:build", false},
	} {
		if got := isBuildConstraint(c.comment); got != c.want {
			t.Errorf("isBuildConstraint(%q) = %v; want %v", c.comment, got, c.want)
		}
	}
}
