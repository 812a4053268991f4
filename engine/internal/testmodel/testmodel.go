// Package testmodel finds, for tests, the real models the project's install
// step downloads into kernel/.models/. Where the install step has run (make
// test and CI set TOKENBYTOKEN_REQUIRE_MODELS=1), a missing model fails the
// test; elsewhere the test is skipped with what to run.
package testmodel

import (
	"os"
	"path/filepath"
	"testing"
)

// SmolLM2 is SmolLM2-135M-Instruct in GGUF, relative to the repository's
// root.
const SmolLM2 = "kernel/.models/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"

// Required reports whether missing models fail tests rather than skip them.
func Required() bool { return os.Getenv("TOKENBYTOKEN_REQUIRE_MODELS") == "1" }

// Path returns the absolute path of the model at rel (relative to the
// repository's root), or ends the test when it is not there.
func Path(t testing.TB, rel string) string {
	t.Helper()
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, rel)
	if _, err := os.Stat(path); err != nil {
		if Required() {
			t.Fatalf("the model %s is missing (%v): run make install", rel, err)
		}
		t.Skipf("the model %s is not installed (make install downloads it): %v", rel, err)
	}
	return path
}

// Root is the repository's root: the nearest folder at or above the
// working folder with a go.mod.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", os.ErrNotExist
		}
	}
}
