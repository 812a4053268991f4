package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine/internal/kernel"
)

// TestReadmeQuickStart runs the generate commands of the README's quick
// start and checks that they print what the README shows, the speed line
// aside (it depends on the machine).
func TestReadmeQuickStart(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start := strings.Index(readme, "\n## Quick start\n")
	if start < 0 {
		t.Fatal("README.md has no '## Quick start' section")
	}
	section := readme[start+1:]
	if end := strings.Index(section[1:], "\n## "); end >= 0 {
		section = section[:end+1]
	}
	// A command, alone in its sh block, then the text block it prints.
	pair := regexp.MustCompile("(?s)```sh\ngo run ./engine/cmd/generate ([^\n]*)\n```\n\n```text\n(.*?)```")
	examples := pair.FindAllStringSubmatch(section, -1)
	if len(examples) < 2 {
		t.Fatalf("found %d generate examples with their output in the quick start, want 2 (a sampled text and the end-of-text stop)", len(examples))
	}
	if !kernel.Available {
		t.Skip("the README's outputs were recorded with the AVX2/FMA kernels; on this CPU the products go through gonum, whose last bits can differ and change what is sampled")
	}
	for _, ex := range examples {
		args, err := shellWords(ex[1])
		if err != nil {
			t.Fatal(err)
		}
		var both writeRecorder
		if status := run(args, &both, &both); status != 0 {
			t.Fatalf("generate %s: status %d\n%s", ex[1], status, strings.Join(both.writes, ""))
		}
		got, want := withoutSpeed(strings.Join(both.writes, "")), withoutSpeed(ex[2])
		if got != want {
			t.Errorf("generate %s prints\n%s\nbut the README shows\n%s", ex[1], got, want)
		}
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

// shellWords splits a command line as sh would, for words that are plain
// or in double quotes without escapes.
func shellWords(line string) ([]string, error) {
	var words []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			end := strings.IndexByte(line[1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("unbalanced quote in %s", line)
			}
			words = append(words, line[1:end+1])
			line = line[end+2:]
			continue
		}
		end := strings.IndexAny(line, " \t")
		if end < 0 {
			end = len(line)
		}
		words = append(words, line[:end])
		line = line[end:]
	}
	return words, nil
}
