package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
	"github.com/tokenbytoken/course/engine/serve"
)

// TestAgainstTheCourseServer: load drives the course's server on
// loopback, and each row counts every token the clients asked for.
func TestAgainstTheCourseServer(t *testing.T) {
	testmodel.Path(t, testmodel.SmolLM2)
	m, tok, err := engine.Load(testmodel.Path(t, testmodel.SmolLM2), "")
	if err != nil {
		t.Fatal(err)
	}
	url, stop, err := serve.Listen(serve.Config{Models: []*serve.Model{{ID: "smollm2", Model: m, Tokenizer: tok}}})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var out, errOut bytes.Buffer
	err = run(context.Background(), []string{"-url", url, "-clients", "1,3", "-requests", "2", "-max-tokens", "12", "-prompt-words", "5", "-json"}, &out, &errOut)
	if err != nil {
		t.Fatalf("load: %v\n%s", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d rows, want 2:\n%s", len(lines), out.String())
	}
	for i, want := range []int{1, 3} {
		var r row
		if err := json.Unmarshal([]byte(lines[i]), &r); err != nil {
			t.Fatal(err)
		}
		if r.Clients != want || r.Requests != 2*want || r.Errors != 0 || r.Tokens != 12*2*want || r.TokensPerSecond <= 0 || r.TTFTp50 <= 0 || r.PromptTokens < 5 {
			t.Errorf("row %d: %+v; want %d clients, %d requests of 12 tokens, no errors", i, r, want, 2*want)
		}
	}
}

// TestRefusals: a host that is not this machine, and impossible numbers,
// are mistakes on the command line.
func TestRefusals(t *testing.T) {
	for _, args := range [][]string{
		{"-url", "http://example.com/v1"},
		{"-url", "http://10.0.0.1:8080/v1"},
		{"-clients", "0"},
		{"-clients", "1,x"},
		{"-requests", "0"},
		{"-max-tokens", "0"},
		{"-ban", "a"},
	} {
		err := run(context.Background(), args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("load %q: %v; want a usage error naming %s", args, err, args[0])
		}
	}
}
