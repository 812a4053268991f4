package train

import (
	"context"
	"github.com/tokenbytoken/course/engine/models"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"\n\n", 0},
		{"x", 1},
		{"func f() {}\n\n", 1},
		{"a\n\nb", 3},
		{"a\nb\n", 2},
		{"func f() {\n}\n\t\n", 2},
	} {
		if got := Lines(c.text); got != c.want {
			t.Errorf("Lines(%q) = %d, want %d", c.text, got, c.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	var xs []int
	for i := 100; i >= 1; i-- { // 1..100, given in reverse
		xs = append(xs, i)
	}
	got := Summarize(xs)
	want := Summary{N: 100, Min: 1, Q1: 25, Median: 50, Q3: 75, P90: 90, Max: 100, Mean: 50.5}
	if got != want {
		t.Errorf("Summarize(1..100) = %+v, want %+v", got, want)
	}
	if xs[0] != 100 {
		t.Error("Summarize sorted its argument")
	}
	if got, want := Summarize([]int{7}), (Summary{N: 1, Min: 7, Q1: 7, Median: 7, Q3: 7, P90: 7, Max: 7, Mean: 7}); got != want {
		t.Errorf("Summarize([7]) = %+v, want %+v", got, want)
	}
	if got := Summarize([]int{4, 1, 3, 2}); got.Median != 2 || got.Q1 != 1 || got.Q3 != 3 || got.P90 != 4 {
		t.Errorf("Summarize([4 1 3 2]) = %+v, want median 2 (the lower middle), quartiles 1 and 3, 90%% 4", got)
	}
	if got := Summarize(nil); got != (Summary{}) {
		t.Errorf("Summarize(nil) = %+v, want the zero Summary", got)
	}
}

// TestDocumentSizes checks the sizes against the token stream the trainer
// builds from the same source: every document there is BOS, its tokens,
// EOS.
func TestDocumentSizes(t *testing.T) {
	_, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	srcs := []Source{{Path: "a.go", Text: sampleGo}, {Path: "b.go", Text: "package b\n\nfunc main() {\n\tprintln(1)\n}\n"}}
	all, err := DocumentSizes(context.Background(), srcs, tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := Tokenize(&Corpus{Train: srcs, Val: srcs[:1]}, tok)
	if err != nil {
		t.Fatal(err)
	}
	var fromStream []int
	n := 0
	for _, id := range stream.Train {
		switch int(id) {
		case tok.BOS():
			n = 0
		case tok.EOS():
			fromStream = append(fromStream, n)
		default:
			n++
		}
	}
	if len(all) != len(fromStream) {
		t.Fatalf("%d documents, but the training stream has %d", len(all), len(fromStream))
	}
	for i, s := range all {
		if s.Tokens != fromStream[i] {
			t.Errorf("document %d: %d tokens, the training stream has %d", i, s.Tokens, fromStream[i])
		}
	}
	// The documents: the header of a.go (4 lines), Greet with its comment
	// (10 lines), helper (6), the header of b.go (1) and main (3).
	wantLines := []int{4, 10, 6, 1, 3}
	for i, s := range all {
		if i < len(wantLines) && s.Lines != wantLines[i] {
			t.Errorf("document %d: %d lines, want %d", i, s.Lines, wantLines[i])
		}
	}

	funcs, err := DocumentSizes(context.Background(), srcs, tok, func(d string) bool { return strings.HasPrefix(d, "func ") })
	if err != nil {
		t.Fatal(err)
	}
	if len(funcs) != 2 || funcs[0] != all[2] || funcs[1] != all[4] {
		t.Errorf("documents starting with \"func \": %+v, want helper's and main's, %+v and %+v", funcs, all[2], all[4])
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := DocumentSizes(ctx, srcs, tok, nil); err == nil {
		t.Error("DocumentSizes with a cancelled context: no error")
	}
	if _, err := DocumentSizes(context.Background(), srcs, nil, nil); err == nil {
		t.Error("DocumentSizes without a tokenizer: no error")
	}
}
