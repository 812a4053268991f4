package decoding

import (
	"bytes"
	"context"
	"errors"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/constrain"
)

// constraintFor compiles a regular expression for the course's tokenizer.
func constraintFor(t *testing.T, tok *engine.Tokenizer, re string) *Constraint {
	t.Helper()
	g, err := constrain.Regexp(re)
	if err != nil {
		t.Fatalf("%q: %v", re, err)
	}
	c, err := NewConstraint(tok, g)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// steps runs Generate and returns its steps, failing the test on an error.
func steps(t *testing.T, ctx context.Context, m *engine.Model, tok *engine.Tokenizer, prompt string, opts Options) []Step {
	t.Helper()
	var out []Step
	for s, err := range Generate(ctx, m, tok, prompt, opts) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if len(out) == 0 || out[len(out)-1].Finish == "" {
		t.Fatalf("the generation did not end with a finish reason: %+v", out)
	}
	return out
}

func joinText(ss []Step) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(s.Text)
	}
	return b.String()
}

// TestGenerateConstraintDone: a language with a last byte ends the
// generation there, with FinishConstraint, on the token that completes
// it, for greedy decoding and sampling alike.
func TestGenerateConstraintDone(t *testing.T) {
	m, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	for _, re := range []string{`(true|false)`, `func [A-Z][a-z]{2,5}\(\) \{`, `[0-9]{3}-[0-9]{4}`} {
		c := constraintFor(t, tok, re)
		for seed := range uint64(4) {
			opts := Options{Constraint: c, Temperature: float64(seed) * 0.5, Seed: seed, MaxNewTokens: 50}
			ss := steps(t, context.Background(), m, tok, "package main\n", opts)
			last := ss[len(ss)-1]
			text := joinText(ss)
			if last.Finish != FinishConstraint || last.ID == NoToken {
				t.Errorf("%q seed %d: %q ended with %q on token %d, want %q on the last token", re, seed, text, last.Finish, last.ID, FinishConstraint)
			}
			if !regexp.MustCompile(`^(?:` + re + `)$`).MatchString(text) {
				t.Errorf("%q seed %d: %q does not match", re, seed, text)
			}
		}
	}
}

// TestGenerateConstraintEnd: where more text could follow, the model's
// end token is allowed only once the text is complete. The end tokens,
// pushed far above every other, are refused at the first step, where the
// text is empty, and taken at the second.
func TestGenerateConstraintEnd(t *testing.T) {
	m, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	re := `[a-z]+( [a-z]+)*`
	c := constraintFor(t, tok, re)
	bias := map[int]float32{}
	for id := range tok.VocabSize() {
		if tok.IsEnd(id) {
			bias[id] = 100
		}
	}
	for seed := range uint64(4) {
		opts := Options{Constraint: c, Temperature: float64(seed) * 0.5, Seed: seed, MaxNewTokens: 20, LogitBias: bias}
		ss := steps(t, context.Background(), m, tok, "// ", opts)
		text := joinText(ss)
		if len(ss) != 2 || !tok.IsEnd(ss[1].ID) || ss[1].Finish != FinishEOS || !regexp.MustCompile(`^[a-z]+$`).MatchString(text) {
			t.Errorf("seed %d: %d steps, %q, finish %q; want a word, then the end token", seed, len(ss), text, ss[len(ss)-1].Finish)
		}
	}
}

// vocabularyWithout is the tokenizer's vocabulary as a constraint sees it,
// without the tokens whose text contains any of the bytes cut.
func vocabularyWithout(t *testing.T, tok *engine.Tokenizer, cut string) *constrain.Vocabulary {
	t.Helper()
	texts := make([][]byte, tok.VocabSize())
	var ends []int
	for id := range texts {
		if tok.IsEnd(id) {
			ends = append(ends, id)
			continue
		}
		if b := tok.TokenBytes(id); !bytes.ContainsAny(b, cut) {
			texts[id] = b
		}
	}
	v, err := constrain.NewVocabulary(texts, ends)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestGenerateConstraintUnsatisfiable: when no token can continue the
// text, the generation ends at once with FinishUnsatisfiable, on a step
// without a token, and the text is what the language allowed so far.
func TestGenerateConstraintUnsatisfiable(t *testing.T) {
	m, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	v := vocabularyWithout(t, tok, "bB")
	for _, tc := range []struct{ re, text string }{
		{`ab`, "a"}, // "a" can be written, then nothing
		{`bcd`, ""}, // nothing can be written at all
	} {
		g, err := constrain.Regexp(tc.re)
		if err != nil {
			t.Fatal(err)
		}
		c := &Constraint{c: constrain.New(g, v), tok: tok}
		for seed := range uint64(3) {
			ss := steps(t, context.Background(), m, tok, "x := ", Options{Constraint: c, Temperature: 1, Seed: seed, MaxNewTokens: 20})
			last := ss[len(ss)-1]
			if last.Finish != FinishUnsatisfiable || last.ID != NoToken {
				t.Errorf("%q seed %d: ended with %q on token %d, want %q on no token", tc.re, seed, last.Finish, last.ID, FinishUnsatisfiable)
			}
			if got := joinText(ss); got != tc.text {
				t.Errorf("%q seed %d: wrote %q, want %q", tc.re, seed, got, tc.text)
			}
			if last.Stats == nil || last.Stats.GeneratedTokens != len(ss)-1 {
				t.Errorf("%q seed %d: stats %+v for %d tokens", tc.re, seed, last.Stats, len(ss)-1)
			}
		}
	}
}

// TestGenerateConstraintSettings: every sampling stage and penalty works
// under a constraint and never leads out of the language, even when the
// stages ban every allowed token (the sampler's fallback is then the
// masked logits, not the model's).
func TestGenerateConstraintSettings(t *testing.T) {
	m, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	re := `[0-9]{3}-[0-9]{4}( [a-z]+)?`
	c := constraintFor(t, tok, re)
	full := regexp.MustCompile(`^(?:` + re + `)$`)
	digits := map[int]float32{}
	for id := range tok.VocabSize() {
		if b := tok.TokenBytes(id); len(b) > 0 && bytes.Trim(b, "0123456789") == nil {
			digits[id] = float32(math.Inf(-1)) // every token of digits banned
		}
	}
	if len(digits) == 0 {
		t.Fatal("the tokenizer has no token of digits")
	}
	for name, opts := range map[string]Options{
		"greedy":           {},
		"temperature":      {Temperature: 1.5},
		"top-k":            {Temperature: 1, TopK: 3},
		"top-p":            {Temperature: 1, TopP: 0.5},
		"min-p":            {Temperature: 1, MinP: 0.2},
		"repetition":       {Temperature: 0.8, RepetitionPenalty: 5, PenaltyWindow: 4},
		"presence":         {Temperature: 0.8, PresencePenalty: 2, FrequencyPenalty: 2},
		"no-repeat 1-gram": {NoRepeatNGram: 1},
		"no-repeat sample": {Temperature: 1, NoRepeatNGram: 1},
		"digits banned":    {Temperature: 1, LogitBias: digits},
		"bias":             {LogitBias: map[int]float32{0: 100, 1: 100, 2: 100}},
	} {
		for seed := range uint64(3) {
			opts.Constraint, opts.Seed, opts.MaxNewTokens = c, seed, 20
			ss := steps(t, context.Background(), m, tok, "call ", opts)
			text := joinText(ss)
			if !full.MatchString(text) {
				t.Errorf("%s seed %d (%s): %q does not match %q", name, seed, ss[len(ss)-1].Finish, text, re)
			}
		}
	}
}

// TestGenerateConstraintStop: stop sequences and StopWhen end a
// constrained generation as they end any other.
func TestGenerateConstraintStop(t *testing.T) {
	m, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	c := constraintFor(t, tok, `abcd`)
	for _, tc := range []struct {
		include bool
		want    string
	}{{false, "a"}, {true, "abc"}} {
		ss := steps(t, context.Background(), m, tok, "x := ", Options{Constraint: c, Stop: []string{"bc"}, IncludeStop: tc.include})
		last := ss[len(ss)-1]
		if got := joinText(ss); got != tc.want || last.Finish != FinishStop || last.Stats.StopSequence != "bc" {
			t.Errorf("IncludeStop %v: %q, finish %q (stop %q); want %q, %q (stop \"bc\")", tc.include, got, last.Finish, last.Stats.StopSequence, tc.want, FinishStop)
		}
	}
	ss := steps(t, context.Background(), m, tok, "x := ", Options{Constraint: c, StopWhen: func(text string, _ []int) bool { return strings.Contains(text, "b") }})
	if got, last := joinText(ss), ss[len(ss)-1]; !strings.HasPrefix("abcd", got) || !strings.Contains(got, "b") || last.Finish != FinishPredicate {
		t.Errorf("StopWhen: %q, finish %q; want a prefix of abcd holding b, %q", got, last.Finish, FinishPredicate)
	}
}

// TestGenerateConstraintLogProbs: LogProb and TopLogProbs are the model's,
// ConstrainedLogProb is the model's renormalised over the allowed tokens,
// and the trace shows the constraint as the stage after the model's.
func TestGenerateConstraintLogProbs(t *testing.T) {
	m, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	g, err := constrain.JSONSchema([]byte(`{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer"}},"required":["name","n"]}`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewConstraint(tok, g)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Constraint: c, Temperature: 0.9, TopK: 40, Seed: 7, MaxNewTokens: 30, TopLogProbs: 3, Trace: true}
	ss := steps(t, context.Background(), m, tok, "var x = ", opts)
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9+1e-6*math.Abs(b) }
	for i, s := range ss {
		if s.ID == NoToken {
			continue
		}
		if len(s.Stages) < 2 || s.Stages[0].Name != "model" || s.Stages[1].Name != "constraint" {
			names := []string{}
			for _, st := range s.Stages {
				names = append(names, st.Name)
			}
			t.Fatalf("step %d: stages %v, want model, constraint, ...", i, names)
		}
		model, masked := s.Stages[0].Probs, s.Stages[1].Probs
		var mass float64
		for id, p := range masked {
			if p > 0 {
				mass += model[id]
			}
		}
		for id, p := range masked {
			if p > 0 && !close(p, model[id]/mass) {
				t.Fatalf("step %d token %d: constrained probability %v, want the model's %v / %v", i, id, p, model[id], mass)
			}
		}
		if masked[s.ID] == 0 {
			t.Fatalf("step %d: token %d was not allowed", i, s.ID)
		}
		if !close(math.Exp(s.LogProb), model[s.ID]) {
			t.Errorf("step %d: LogProb %v, the model's probability is %v", i, s.LogProb, model[s.ID])
		}
		if !close(math.Exp(s.ConstrainedLogProb), masked[s.ID]) {
			t.Errorf("step %d: ConstrainedLogProb %v, the constrained probability is %v", i, s.ConstrainedLogProb, masked[s.ID])
		}
		if len(s.TopLogProbs) != 3 || argmaxProbs(model) != s.TopLogProbs[0].ID || !close(math.Exp(s.TopLogProbs[0].LogProb), model[s.TopLogProbs[0].ID]) {
			t.Errorf("step %d: TopLogProbs %v; the model's most likely token is %d", i, s.TopLogProbs, argmaxProbs(model))
		}
	}
}

// argmaxProbs is the index of the largest probability.
func argmaxProbs(p []float64) int {
	best := 0
	for i, v := range p {
		if v > p[best] {
			best = i
		}
	}
	return best
}

// TestGenerateConstraintCancel: a cancelled context ends a constrained
// generation with FinishCancelled, the text so far inside the language.
func TestGenerateConstraintCancel(t *testing.T) {
	m, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	re := `[a-z]+( [a-z]+)*`
	c := constraintFor(t, tok, re)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ss []Step
	for s, err := range Generate(ctx, m, tok, "// ", Options{Constraint: c, Temperature: 1, Seed: 3, MaxNewTokens: 100}) {
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
		if len(ss) == 3 {
			cancel()
		}
	}
	last := ss[len(ss)-1]
	if last.Finish != FinishCancelled || len(ss) > 4 {
		t.Errorf("%d steps, finish %q; want at most 4, %q", len(ss), last.Finish, FinishCancelled)
	}
	if text := joinText(ss); !regexp.MustCompile(`^(?:` + re + `)$`).MatchString(text) {
		t.Errorf("%q is not a sentence of %q", text, re)
	}
}

// TestGenerateConstraintBudget: with few tokens left, by MaxNewTokens or
// by the context, the constraint closes the JSON value in time.
func TestGenerateConstraintBudget(t *testing.T) {
	m, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	schema := `{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]}}`
	g, err := constrain.JSONSchema([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewConstraint(tok, g)
	if err != nil {
		t.Fatal(err)
	}
	valid := compileSchema(t, schema)
	for n := 2; n <= 14; n += 3 {
		for seed := range uint64(3) {
			ss := steps(t, context.Background(), m, tok, "x = ", Options{Constraint: c, Temperature: 1.5, Seed: seed, MaxNewTokens: n})
			text := joinText(ss)
			if err := validate(t, valid, []byte(text)); err != nil {
				t.Errorf("MaxNewTokens %d seed %d (%s): %q: %v", n, seed, ss[len(ss)-1].Finish, text, err)
			}
		}
	}
	// A prompt that leaves at most 6 positions of the context.
	n := m.Config.SeqLen
	var prompt string
	var enc []int
	for ; n > 0; n-- {
		prompt = strings.Repeat(" go", n)
		if enc, err = tok.Encode(prompt, true, false); err != nil {
			t.Fatal(err)
		}
		if len(enc) <= m.Config.SeqLen-6 {
			break
		}
	}
	if left := m.Config.SeqLen - len(enc); left > 6 || left < 1 {
		t.Fatalf("the prompt leaves %d positions, want 1 to 6", left)
	}
	ss := steps(t, context.Background(), m, tok, prompt, Options{Constraint: c, Temperature: 1.5, Seed: 1})
	if err := validate(t, valid, []byte(joinText(ss))); err != nil {
		t.Errorf("%d positions left (%s): %q: %v", m.Config.SeqLen-len(enc), ss[len(ss)-1].Finish, joinText(ss), err)
	}
}

// TestGenerateConstraintDecoders: beam search and speculative decoding
// refuse a constraint; the decoder without a cache applies it, and gives
// the cached loop's text.
func TestGenerateConstraintDecoders(t *testing.T) {
	m, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	c := constraintFor(t, tok, `[a-z]+( [a-z]+)*\.`)
	for _, d := range []Decoder{Beam{Width: 2}, Speculation{Drafter: PromptLookup{MaxN: 2}, Gamma: 2}} {
		err := Options{Constraint: c, Decoder: d}.Validate(m.Config.VocabSize)
		var se *SettingError
		if !errors.As(err, &se) || se.Setting != "Constraint" {
			t.Errorf("%T with a constraint: %v, want a SettingError on Constraint", d, err)
		}
	}
	opts := Options{Constraint: c, MaxNewTokens: 16}
	want := joinText(steps(t, context.Background(), m, tok, "// ", opts))
	opts.Decoder = NoCache{}
	if got := joinText(steps(t, context.Background(), m, tok, "// ", opts)); got != want {
		t.Errorf("NoCache: %q; the cached loop: %q", got, want)
	}
}

// TestConstraintVocabularyMismatch: a constraint made for another
// vocabulary is refused by name.
func TestConstraintVocabularyMismatch(t *testing.T) {
	_, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	g, err := constrain.Regexp(`a`)
	if err != nil {
		t.Fatal(err)
	}
	v, err := constrain.NewVocabulary([][]byte{[]byte("a"), []byte("b")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &Constraint{c: constrain.New(g, v), tok: tok}
	err = Options{Constraint: c}.Validate(tok.VocabSize())
	var se *SettingError
	if !errors.As(err, &se) || se.Setting != "Constraint" || !strings.Contains(err.Error(), "2 tokens") {
		t.Errorf("a constraint on 2 tokens for a model of %d: %v, want a SettingError on Constraint naming both sizes", tok.VocabSize(), err)
	}
}
