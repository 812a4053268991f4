package chat

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzTemplate checks that any template parses or fails with a
// SyntaxError, and renders or fails with a RenderError: never a panic.
func FuzzTemplate(f *testing.F) {
	var features map[string]string
	if b, err := os.ReadFile("testdata/features.json"); err == nil {
		if err := json.Unmarshal(b, &features); err != nil {
			f.Fatal(err)
		}
	}
	for _, src := range features {
		f.Add(src)
	}
	files, _ := filepath.Glob("testdata/templates/*.jinja")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	msgs := []Message{{"system", "sys"}, {"user", "Hi {{ x }}"}, {"assistant", " ok "}, {"user", "é"}}
	f.Fuzz(func(t *testing.T, src string) {
		tmpl, err := Parse(src)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Column < 1 {
				t.Fatalf("Parse(%q): %v (%T)", src, err, err)
			}
			return
		}
		out, err := tmpl.Render(msgs, true, "<s>", "</s>")
		if err != nil {
			var re *RenderError
			if !errors.As(err, &re) || re.Line < 1 || re.Column < 1 {
				t.Fatalf("Render(%q): %v (%T)", src, err, err)
			}
			return
		}
		if len(out) > 1<<20+16*(len(src)+64) {
			t.Fatalf("Render(%q): %d bytes, over the limit", src, len(out))
		}
	})
}
