package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/train"
)

// The generate command's sampling defaults (engine/cmd/generate), under
// which -stops samples its second set of texts; a test keeps them equal.
const (
	generateTemperature   = 0.7
	generateTopP          = 0.9
	generateRepeatPenalty = 1.3
	generatePenaltyWindow = 64
)

// stopSettings are the two ways -stops samples: the model's own
// distribution, and what a learner gets from the generate command.
var stopSettings = []struct {
	name string
	opts decoding.Options
}{
	{"samples, temperature 1", decoding.Options{Temperature: 1}},
	{"samples, generate's defaults", decoding.Options{Temperature: generateTemperature, TopP: generateTopP, RepetitionPenalty: generateRepeatPenalty, PenaltyWindow: generatePenaltyWindow}},
}

// lengthRow is one line of the -stops table: the lengths of some texts,
// and how many of them did not end within the context.
type lengthRow struct {
	name          string
	tokens, lines []int
	unended       int
}

// measureStops compares where the model ends its texts with where the
// documents it was trained on end. It cuts the training files of the
// corpus at root into documents as the trainer does (train.Segments) and
// measures them all, those starting with "func " and those starting with
// the prompt; then it samples n texts from the prompt at each of
// stopSettings (seeds 1..n), each until the model writes end-of-text or
// the context is full. A length counts the prompt's tokens and lines with
// the generated ones, so it is measured as a document's is: tokens without
// BOS and EOS, lines as train.Lines counts them.
func measureStops(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, prompt, root string, n int, w io.Writer) error {
	if root == "" {
		r, err := train.GoSourceRoot()
		if err != nil {
			return err
		}
		root = r
	}
	corpus, err := train.LoadGoSource(root, train.SourceOptions{})
	if err != nil {
		return err
	}
	sizes, err := train.DocumentSizes(ctx, corpus.Train, tok, nil)
	if err != nil {
		return err
	}
	// The longest text that can still be followed by end-of-text within
	// the context: BOS takes one position.
	longest := m.Config.SeqLen - 1
	docRow := func(name string, keep func(i int) bool) lengthRow {
		r := lengthRow{name: name}
		for i, s := range sizes {
			if keep(i) {
				r.tokens = append(r.tokens, s.Tokens)
				r.lines = append(r.lines, s.Lines)
				if s.Tokens > longest {
					r.unended++
				}
			}
		}
		return r
	}
	// DocumentSizes keeps the order of Segments, so the i-th size is the
	// i-th document.
	var docs []string
	for _, s := range corpus.Train {
		docs = append(docs, train.Segments(s.Text)...)
	}
	if len(docs) != len(sizes) {
		return fmt.Errorf("cut %d documents but measured %d", len(docs), len(sizes))
	}
	rows := []lengthRow{
		docRow("training documents", func(int) bool { return true }),
		docRow(`  starting with "func "`, func(i int) bool { return strings.HasPrefix(docs[i], "func ") }),
		docRow("  starting with the prompt", func(i int) bool { return strings.HasPrefix(docs[i], prompt) }),
	}

	ids, err := tok.Encode(prompt, false, false)
	if err != nil {
		return err
	}
	for _, set := range stopSettings {
		r := lengthRow{name: set.name}
		for seed := 1; seed <= n; seed++ {
			opts := set.opts
			opts.Seed = uint64(seed)
			text, generated, ended, err := sampleToEnd(ctx, m, tok, prompt, opts)
			if err != nil {
				return fmt.Errorf("%s, seed %d: %w", set.name, seed, err)
			}
			r.tokens = append(r.tokens, len(ids)+generated)
			r.lines = append(r.lines, train.Lines(prompt+text))
			if !ended {
				r.unended++
			}
		}
		rows = append(rows, r)
	}

	fmt.Fprintf(w, "Where the texts end: prompt %q (%d tokens); %d training files under %s; %d samples per setting, seeds 1..%d.\n",
		prompt, len(ids), len(corpus.Train), root, n, n)
	fmt.Fprintf(w, "Samples at temperature 1 follow the model's own distribution; generate's defaults are temperature %v, top-p %v\n",
		generateTemperature, generateTopP)
	fmt.Fprintf(w, "and a repetition penalty of %v over the last %d tokens. Lengths count the prompt's tokens, not BOS and EOS,\n",
		generateRepeatPenalty, generatePenaltyWindow)
	fmt.Fprintf(w, "and the lines of text, not the blank lines at the end; \"one line\" counts the texts of at most one line.\n\n")
	// Right-aligned numbers; the names are padded to one width, so they
	// stay left-aligned.
	width := 0
	for _, r := range rows {
		width = max(width, utf8.RuneCountInString(r.name))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tcount\ttokens: q1\tmedian\tq3\t90%%\tlines: q1\tmedian\tq3\t90%%\tone line\tlonger than %d tokens\t\n", width, "", longest)
	for _, r := range rows {
		t, l := train.Summarize(r.tokens), train.Summarize(r.lines)
		oneLine := 0
		for _, n := range r.lines {
			if n <= 1 {
				oneLine++
			}
		}
		fmt.Fprintf(tw, "%-*s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n",
			width, r.name, t.N, t.Q1, t.Median, t.Q3, t.P90, l.Q1, l.Median, l.Q3, l.P90, percent(oneLine, t.N), percent(r.unended, t.N))
	}
	return tw.Flush()
}

// sampleToEnd generates from the prompt until the model ends the text or
// the context is full. It returns the generated text, the number of
// generated tokens (the end-of-text token not counted) and whether the
// model ended the text.
func sampleToEnd(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, prompt string, opts decoding.Options) (text string, tokens int, ended bool, err error) {
	var sb strings.Builder
	for step, err := range decoding.Generate(ctx, m, tok, prompt, opts) {
		if err != nil {
			return "", 0, false, err
		}
		sb.WriteString(step.Text)
		switch step.Finish {
		case "":
			tokens++
		case decoding.FinishEOS:
			return sb.String(), tokens, true, nil
		case decoding.FinishContext:
			return sb.String(), tokens + 1, false, nil
		default:
			return "", 0, false, fmt.Errorf("generation ended by %q, not by end-of-text or a full context", step.Finish)
		}
	}
	return "", 0, false, errors.New("generation ended without a final step")
}

// percent writes n of total as "n (p%)".
func percent(n, total int) string {
	p := 0.0
	if total > 0 {
		p = 100 * float64(n) / float64(total)
	}
	return fmt.Sprintf("%d (%.1f%%)", n, p)
}
