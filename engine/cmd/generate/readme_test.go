package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine/internal/simd"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
	"github.com/tokenbytoken/course/kernel/cmddoc"
)

// readmeExample is a generate command the README shows alone in its sh
// block, followed by a text block with what it prints.
type readmeExample struct {
	line, output string
}

// readmeExamples returns the README's generate commands that come with
// their output.
func readmeExamples(t *testing.T) []readmeExample {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	pair := regexp.MustCompile("(?s)```sh\ngo run ./engine/cmd/generate ([^\n]*)\n```\n\n```text\n(.*?)```")
	var examples []readmeExample
	for _, m := range pair.FindAllStringSubmatch(string(data), -1) {
		examples = append(examples, readmeExample{m[1], m[2]})
	}
	return examples
}

// TestReadmeOutputs runs the generate commands the README shows with their
// output and checks that they print what it shows, the speed line aside
// (it depends on the machine).
func TestReadmeOutputs(t *testing.T) {
	examples := readmeExamples(t)
	builtIn := 0
	for _, ex := range examples {
		if !strings.Contains(ex.line, "-model") {
			builtIn++
		}
	}
	if builtIn < 2 {
		t.Fatalf("the README shows %d generate examples of the built-in model with their output, want 2 (a sampled text and the end-of-text stop)", builtIn)
	}
	if !simd.Available {
		t.Skip("the README's outputs were recorded with the AVX2/FMA kernels; on this CPU the products go through gonum, whose last bits can differ and change what is sampled")
	}
	for _, ex := range examples {
		t.Run(ex.line, func(t *testing.T) {
			args, err := cmddoc.Words(ex.line)
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(args, "smollm2") {
				testmodel.Path(t, testmodel.SmolLM2)
			}
			var both writeRecorder
			if status := run(args, &both, &both); status != 0 {
				t.Fatalf("generate %s: status %d\n%s", ex.line, status, strings.Join(both.writes, ""))
			}
			got, want := withoutSpeed(strings.Join(both.writes, "")), withoutSpeed(ex.output)
			if got != want {
				t.Errorf("generate %s prints\n%s\nbut the README shows\n%s", ex.line, got, want)
			}
		})
	}
}

// TestReadmeSmolLM2IsLlamaCpps checks the README's greedy SmolLM2 example
// against llama.cpp's greedy run of the same prompt, recorded in the
// course's shared folder beside the repository.
func TestReadmeSmolLM2IsLlamaCpps(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "..", "..", "shared", "models", "smollm2", "llamacpp-greedy.jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("llama.cpp's recordings are not beside the repository:", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recorded := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r struct {
			Prompt string
			Steps  []struct{ Piece string }
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		for _, s := range r.Steps {
			text.WriteString(s.Piece)
		}
		recorded[r.Prompt] = text.String()
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, ex := range readmeExamples(t) {
		args, err := cmddoc.Words(ex.line)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := parseFlags(args, &writeRecorder{})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.model != "smollm2" || cfg.temperature != 0 || cfg.chat != "" {
			continue
		}
		want, ok := recorded[cfg.prompt]
		if !ok {
			t.Errorf("generate %s: llama.cpp's recordings have no run of this prompt", ex.line)
			continue
		}
		text, _, _ := strings.Cut(ex.output, "stopped: ")
		// The command ends stdout with a new line of its own.
		text = strings.TrimSuffix(strings.TrimPrefix(text, cfg.prompt), "\n")
		if !strings.HasPrefix(want, text) {
			t.Errorf("generate %s: the README shows %q; llama.cpp's greedy run writes %q", ex.line, text, want)
		}
		checked++
	}
	if checked == 0 {
		t.Error("the README shows no greedy SmolLM2 example with its output")
	}
}

// withoutSpeed drops the "speed:" line.
func withoutSpeed(s string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, "speed: ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}
