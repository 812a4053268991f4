package stopping

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/exercises/internal/check"
)

// tableLM is a four-token model whose logits depend only on the last
// token; its budget stops code that keeps asking.
type tableLM struct {
	asked  [][]int // every prefix it was asked about
	budget *check.Budget
}

var errTooLong = errors.New("prefix too long for the table model")

func (l *tableLM) VocabSize() int     { return 4 }
func (l *tableLM) ContextLength() int { return 3 }
func (l *tableLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	l.budget.Spend()
	l.asked = append(l.asked, slices.Clone(prefix))
	if n != 1 || len(prefix) == 0 {
		return nil, fmt.Errorf("table model asked for %d rows after %v; it answers 1 row after a non-empty prefix", n, prefix)
	}
	if len(prefix) > 3 {
		return nil, errTooLong
	}
	table := [][]float32{
		{0, 2, 2, 1},     // after 0: tokens 1 and 2 tie; the first wins
		{0, 0, 0, 5},     // after 1: token 3
		{1, 0, 0, 0},     // after 2: token 0
		{9, -1, -1, 0.5}, // after 3: token 0
	}
	return [][]float32{table[prefix[len(prefix)-1]]}, nil
}

// TestTask3_GreedyNext: GreedyNext asks the model about the prompt followed
// by the tokens so far, picks the largest logit (the first on ties), decodes
// it after the token before it, leaves the prompt alone and passes errors on.
//
//grade:task 3 points 1
func TestTask3_GreedyNext(t *testing.T) {
	defer check.Recover(t)
	// Each step asks the model once: three steps in all.
	lm := &tableLM{budget: check.NewBudget(t, "the model's NextLogits").For("three steps of the NextToken from GreedyNext(lm, [0], decode)", 13,
		"the NextToken asks the model once per call, and returns its error as it is: does it ask again?")}
	backing := []int{0, -7, -7, -7}
	prompt := backing[:1]
	decode := func(prev, id int) string { return fmt.Sprintf("%d>%d ", prev, id) }
	next := GreedyNext(lm, prompt, decode)
	if next == nil {
		t.Fatalf("GreedyNext(lm, %v, decode) = nil; want a NextToken", prompt)
	}
	var generated []int
	var pieces []string
	for range 2 {
		id, piece, err := next(context.Background(), generated)
		if err != nil {
			t.Fatalf("the NextToken from GreedyNext, called with generated %v: error %v", generated, err)
		}
		generated = append(generated, id)
		pieces = append(pieces, piece)
	}
	if !slices.Equal(generated, []int{1, 3}) || !slices.Equal(pieces, []string{"0>1 ", "1>3 "}) {
		t.Errorf("two greedy steps after prompt [0] on the table model gave ids %v, pieces %q; want [1 3], [\"0>1 \" \"1>3 \"] (ties go to the first token; decode(prev, id) with prev the token before)",
			generated, pieces)
	}
	if want := [][]int{{0}, {0, 1}}; fmt.Sprint(lm.asked) != fmt.Sprint(want) {
		t.Errorf("the model was asked about the prefixes %s; want %v (the prompt, then the prompt followed by the generated tokens)", check.List(lm.asked, check.Vec[int]), want)
	}
	if !slices.Equal(backing, []int{0, -7, -7, -7}) {
		t.Errorf("the array behind the prompt changed to %v; want [0 -7 -7 -7]: build a new slice instead of appending to prompt", backing)
	}
	if _, _, err := next(context.Background(), []int{1, 3, 0}); !errors.Is(err, errTooLong) {
		t.Errorf("a step the model refuses (prefix of 4 > 3): error %v; want the model's error %q", err, errTooLong)
	}
}

// boundedLM is a model, such as the course's, whose questions a budget
// bounds.
type boundedLM struct {
	LM
	budget *check.Budget
}

func (m boundedLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	m.budget.Spend()
	return m.LM.NextLogits(prefix, n)
}

// courseModel loads the course's embedded model.
func courseModel(t *testing.T) (*engine.Model, *engine.Tokenizer) {
	t.Helper()
	m, tok, err := models.Default()
	if err != nil {
		t.Fatalf("models.Default(): %v", err)
	}
	return m, tok
}

// encode is the prompt's token ids, BOS first, as decoding.Generate encodes it.
func encode(t *testing.T, tok *engine.Tokenizer, prompt string) []int {
	t.Helper()
	ids, err := tok.Encode(prompt, true, false)
	if err != nil {
		t.Fatalf("encoding %q: %v", prompt, err)
	}
	return ids
}

// greedyPieces returns the pieces of n greedy tokens after prompt, computed
// with the engine; an end-of-text token ends the list (and has no piece).
func greedyPieces(t *testing.T, m *engine.Model, tok *engine.Tokenizer, prompt string, n int) []string {
	t.Helper()
	ids := encode(t, tok, prompt)
	prev := ids[len(ids)-1]
	var pieces []string
	for step, err := range decoding.Decode(context.Background(), engine.NewModelLM(m, 1), ids, decoding.Options{MaxNewTokens: n, IsEnd: tok.IsEnd}) {
		id := step.ID
		if err != nil {
			t.Fatalf("greedy tokens after %q: %v", prompt, err)
		}
		if tok.IsEnd(id) {
			break
		}
		pieces = append(pieces, tok.Decode(prev, id))
		prev = id
	}
	return pieces
}

// straddling returns the strings made of the last two bytes of one piece
// and the first two of the next that occur in the text first at that token
// boundary: stop strings that only a matcher working across tokens finds.
func straddling(pieces []string) []string {
	text := strings.Join(pieces, "")
	var found []string
	offset := 0
	for i := 0; i+1 < len(pieces); i++ {
		a, b := pieces[i], pieces[i+1]
		offset += len(a)
		if i == 0 || a == "" || b == "" {
			continue // the first token is skipped, so some text comes before the stop
		}
		s := a[len(a)-min(2, len(a)):] + b[:min(2, len(b))]
		if utf8.ValidString(s) && strings.Index(text, s) == offset-min(2, len(a)) {
			found = append(found, s)
		}
	}
	return found
}

// engineRun is what decoding.Generate gives: the text the reader saw, the
// generated ids, the finish reason and the stop sequence.
type engineRun struct {
	text   string
	ids    []int
	finish FinishReason
	stop   string
}

func runEngine(t *testing.T, m *engine.Model, tok *engine.Tokenizer, prompt string, opts decoding.Options) engineRun {
	t.Helper()
	var r engineRun
	var b strings.Builder
	for step, err := range decoding.Generate(context.Background(), m, tok, prompt, opts) {
		if err != nil {
			t.Fatalf("decoding.Generate(%q): %v", prompt, err)
		}
		b.WriteString(step.Text)
		r.ids = append(r.ids, step.ID)
		if step.Finish != "" {
			r.finish, r.stop = FinishReason(step.Finish), step.Stats.StopSequence
		}
	}
	r.text = b.String()
	return r
}

// asShown turns raw bytes into the valid UTF-8 the engine shows (invalid or
// unfinished characters become U+FFFD), to compare texts like the engine.
func asShown(raw string) string {
	var u decoding.UTF8Stream
	return u.Push(raw) + u.Flush()
}

// stopCase is a prompt, a number of tokens, and stop strings to try.
type stopCase struct {
	prompt string
	n      int
	stops  []string
}

// stopCases builds stop strings from the model's own greedy text: one or two
// that straddle token boundaries, "\n\n", and several at once.
func stopCases(t *testing.T, m *engine.Model, tok *engine.Tokenizer) []stopCase {
	t.Helper()
	var cases []stopCase
	for _, c := range []struct {
		prompt string
		n      int
	}{
		{"func (b *Buffer) WriteString(s string) (n int, err error) {", 40},
		{"// Len returns", 40},
	} {
		s := straddling(greedyPieces(t, m, tok, c.prompt, c.n))
		if len(s) < 2 {
			t.Fatalf("greedy text after %q has %d straddling stop strings; the test needs 2", c.prompt, len(s))
		}
		last := s[len(s)-1]
		cases = append(cases,
			stopCase{c.prompt, c.n, []string{s[0]}},
			stopCase{c.prompt, c.n, []string{last}},
			stopCase{c.prompt, c.n, []string{last, s[0], "\n\n"}},
			stopCase{c.prompt, c.n, []string{"\n\n"}},
			stopCase{c.prompt, c.n, []string{"no such text"}},
		)
	}
	return cases
}

// TestTask3_MatcherOnCourseModel: your StopMatcher, fed the course model's
// greedy tokens one piece at a time, never shows more than decoding.Generate
// shows in the end, and ends with exactly its text, for stop strings that
// straddle token boundaries, several at once, and with or without include.
//
//grade:task 3 points 1
func TestTask3_MatcherOnCourseModel(t *testing.T) {
	defer check.Recover(t)
	m, tok := courseModel(t)
	for _, c := range stopCases(t, m, tok) {
		pieces := greedyPieces(t, m, tok, c.prompt, c.n)
		for _, include := range []bool{false, true} {
			want := runEngine(t, m, tok, c.prompt, decoding.Options{MaxNewTokens: c.n, Stop: c.stops, IncludeStop: include})
			mt := newMatcher(t, c.stops, include)
			shown, stopped := "", false
			for _, p := range pieces {
				out, _, ok := mt.Push(p)
				shown += out
				if utf8.ValidString(shown) && !strings.HasPrefix(want.text, shown) {
					t.Fatalf("prompt %q, stops %q include=%v: after the piece %q the reader has seen %q, which is not the start of decoding.Generate's text %q",
						c.prompt, c.stops, include, p, shown, want.text)
				}
				if ok {
					stopped = true
					break
				}
			}
			if !stopped {
				shown += mt.Flush()
			}
			if got := asShown(shown); got != want.text {
				t.Errorf("prompt %q, stops %q include=%v: your matcher over the greedy tokens shows %q; decoding.Generate shows %q", c.prompt, c.stops, include, got, want.text)
			}
		}
	}
}

// TestTask3_GenerateOnCourseModel: your Generate with GreedyNext over the
// course's model gives the same tokens, text, finish reason and stop
// sequence as decoding.Generate with the same settings: stop strings (with
// and without IncludeStop), a length limit, the end-of-text token and a rule
// that stops when the function's body closes.
//
//grade:task 3 points 2
func TestTask3_GenerateOnCourseModel(t *testing.T) {
	defer check.Recover(t)
	m, tok := courseModel(t)
	closes := func(text string) bool {
		depth := 1
		for _, r := range text {
			switch r {
			case '{':
				depth++
			case '}':
				if depth--; depth == 0 {
					return true
				}
			}
		}
		return false
	}
	type run struct {
		prompt  string
		cfg     Config
		rule    bool
		comment string
	}
	var runs []run
	for _, c := range stopCases(t, m, tok) {
		for _, include := range []bool{false, true} {
			runs = append(runs, run{c.prompt, Config{MaxNewTokens: c.n, Stop: c.stops, IncludeStop: include}, false, "stop strings"})
		}
	}
	runs = append(runs,
		run{"func (b *Buffer) WriteString(s string) (n int, err error) {", Config{MaxNewTokens: 40}, false, "the end-of-text token"},
		run{"func (b *Buffer) WriteString(s string) (n int, err error) {", Config{MaxNewTokens: 40}, true, "the closing brace"},
		run{"func (b *Buffer) WriteString(s string) (n int, err error) {", Config{MaxNewTokens: 5}, true, "the length limit"},
		run{"// Len returns", Config{MaxNewTokens: 12, Stop: []string{"zzz"}}, false, "the length limit"},
	)
	for _, r := range runs {
		cfg := r.cfg
		cfg.IsEnd = tok.IsEnd
		opts := decoding.Options{MaxNewTokens: cfg.MaxNewTokens, Stop: cfg.Stop, IncludeStop: cfg.IncludeStop}
		if r.rule {
			cfg.StopWhen = closes
			opts.StopWhen = func(text string, _ []int) bool { return closes(text) }
		}
		want := runEngine(t, m, tok, r.prompt, opts)
		ids := encode(t, tok, r.prompt)
		lm := boundedLM{engine.NewModelLM(m, 1), modelBudget(t, fmt.Sprintf("Generate over the course model after %q with %s", r.prompt, describe(cfg)), cfg.MaxNewTokens+10)}
		next := GreedyNext(lm, ids, tok.Decode)
		if next == nil {
			t.Fatalf("GreedyNext(the course model, %s, tok.Decode) = nil; want a NextToken", check.Vec(ids))
		}
		res, err := Generate(context.Background(), next, cfg)
		if err != nil {
			t.Fatalf("Generate over the course model after %q with %s: error %v", r.prompt, describe(cfg), err)
		}
		got := engineRun{asShown(res.Text), res.IDs, res.Finish, res.StopSequence}
		if got.text != want.text || !slices.Equal(got.ids, want.ids) || got.finish != want.finish || got.stop != want.stop {
			t.Errorf("Generate over the course model after %q with %s (ending on %s):\n got Text %q, ids %s, Finish %q, StopSequence %q\nwant Text %q, ids %s, Finish %q, StopSequence %q (decoding.Generate)",
				r.prompt, describe(cfg), r.comment, got.text, check.Vec(got.ids), got.finish, got.stop, want.text, check.Vec(want.ids), want.finish, want.stop)
		}
	}
}
