package main

import (
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"strings"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

// sampleFuncs samples n functions from the model, each from the prompt
// (normally "func ") with its own seed, stopped at the first closing brace
// in column 0 (or when the model ends the text or the context is full),
// and reports how many parse as a Go function declaration with go/parser.
func sampleFuncs(m *engine.Model, tok *engine.Tokenizer, prompt string, n int, temperature, topP float64, show int, w io.Writer) (parsed int, err error) {
	for i := range n {
		text, err := sampleFunc(m, tok, prompt, decoding.Options{Temperature: temperature, TopP: topP, Seed: uint64(i + 1)})
		if err != nil {
			return parsed, err
		}
		fset := token.NewFileSet()
		_, perr := parser.ParseFile(fset, "sample.go", "package p\n\n"+text, parser.SkipObjectResolution)
		if perr == nil {
			parsed++
		}
		if i < show {
			status := "parses"
			if perr != nil {
				status = "does not parse: " + firstLine(perr.Error())
			}
			fmt.Fprintf(w, "--- sample %d (%s)\n%s\n", i+1, status, text)
		}
	}
	return parsed, nil
}

// sampleFunc generates one function.
func sampleFunc(m *engine.Model, tok *engine.Tokenizer, prompt string, opts decoding.Options) (string, error) {
	var sb strings.Builder
	sb.WriteString(prompt)
	for step, err := range decoding.Generate(context.Background(), m, tok, prompt, opts) {
		if err != nil {
			return "", err
		}
		sb.WriteString(step.Text)
		s := sb.String()
		if i := strings.Index(s, "\n}"); i >= 0 {
			return s[:i+2] + "\n", nil
		}
	}
	return sb.String(), nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
