package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

// Validator checks texts against a JSON Schema with a full validator (not
// the constraint's own compiler), so that what the constraint promises is
// checked by something else.
type Validator struct {
	schema *jsonschema.Schema
}

// Check returns nil when text, all of it, is one JSON value that validates
// against the schema; otherwise an error that says whether it is not JSON
// at all or which rule it breaks.
func (v *Validator) Check(text string) error {
	value, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if err := v.schema.Validate(value); err != nil {
		return fmt.Errorf("JSON, but not valid: %s", reasons(err))
	}
	return nil
}

// ValidShare returns the share of texts that pass Check (0 for no texts).
func (v *Validator) ValidShare(texts []string) float64 {
	if len(texts) == 0 {
		return 0
	}
	n := 0
	for _, t := range texts {
		if v.Check(t) == nil {
			n++
		}
	}
	return float64(n) / float64(len(texts))
}

// Invalid returns the indices of the texts that fail Check, in order.
func (v *Validator) Invalid(texts []string) []int {
	var out []int
	for i, t := range texts {
		if v.Check(t) != nil {
			out = append(out, i)
		}
	}
	return out
}

// NewValidator compiles schema, a JSON Schema document.
func NewValidator(schema string) (*Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("schema %q is not JSON: %v", schema, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem:///schema.json", doc); err != nil {
		return nil, fmt.Errorf("schema %q: %v", schema, err)
	}
	s, err := c.Compile("mem:///schema.json")
	if err != nil {
		return nil, fmt.Errorf("schema %q: %v", schema, err)
	}
	return &Validator{schema: s}, nil
}

// reasons is a validation error without its first line, which names the
// schema's address rather than what is wrong: "at '/age': got string,
// want integer", the reasons joined by "; ".
func reasons(err error) string {
	lines := strings.Split(err.Error(), "\n")
	var out []string
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "-")); l != "" {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return err.Error()
	}
	return strings.Join(out, "; ")
}

// Samples generates n texts after prompt with opts, the i-th with seed
// opts.Seed+i, and returns what a reader would get (the steps' Text
// joined) and the finish reason of each.
func Samples(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, prompt string, n int, opts decoding.Options) ([]string, []decoding.FinishReason, error) {
	if n < 0 {
		return nil, nil, fmt.Errorf("%d samples: want 0 or more", n)
	}
	texts := make([]string, n)
	finish := make([]decoding.FinishReason, n)
	seed := opts.Seed
	for i := range n {
		opts.Seed = seed + uint64(i)
		var text strings.Builder
		for step, err := range decoding.Generate(ctx, m, tok, prompt, opts) {
			if err != nil {
				return nil, nil, fmt.Errorf("sample %d (seed %d): %w", i, opts.Seed, err)
			}
			text.WriteString(step.Text)
			finish[i] = step.Finish
		}
		texts[i] = text.String()
	}
	return texts, finish, nil
}

// GuidedStep is one token of a Guided run.
type GuidedStep struct {
	ID    int
	Piece string // the bytes the token added to the text ("" for an end token)
	// Allowed is how many tokens of the vocabulary the mask allowed at this
	// step (the whole vocabulary without a constraint).
	Allowed int
	// Kept is the probability the model gave, before any sampling stage, to
	// the tokens the mask allowed: how much of its distribution survived.
	Kept float64
	// Mask is the time spent masking the logits, Sample the time the
	// sampler took to draw from them, Forward the time of the forward pass
	// that computed them.
	Mask, Sample, Forward time.Duration
}

// GuidedRun is a generation with a constraint, step by step.
type GuidedRun struct {
	Text   string
	Steps  []GuidedStep
	Finish decoding.FinishReason
}

// Guided generates after prompt with opts (its sampler settings, Seed and
// MaxNewTokens; stop sequences and decoders are not used) under the
// constraint c, as decoding.Generate does with Options.Constraint, and
// records every step: the token, how many tokens the
// mask allowed and how much of the model's probability they held, and
// the time of the mask, of the draw and of the forward pass. With c nil
// it runs the same loop without a mask, to compare against. It ends with
// decoding.FinishConstraint when the text is complete and nothing may
// follow, decoding.FinishUnsatisfiable when no token is allowed, or as
// decoding.Generate would (an end token, the length limit, the context).
func Guided(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, c *decoding.Constraint, prompt string, opts decoding.Options) (GuidedRun, error) {
	var run GuidedRun
	if m == nil || tok == nil {
		return run, fmt.Errorf("Guided needs a model and a tokenizer (got %v and %v)", m, tok)
	}
	if opts.Constraint != nil {
		return run, fmt.Errorf("Guided takes its constraint as c; opts.Constraint (%p) must be nil", opts.Constraint)
	}
	if err := opts.Validate(m.Config.VocabSize); err != nil {
		return run, err
	}
	ids, err := tok.Encode(prompt, true, false)
	if err != nil {
		return run, err
	}
	if len(ids) == 0 || len(ids) >= m.Config.SeqLen {
		return run, fmt.Errorf("prompt of %d tokens: want 1 to %d", len(ids), m.Config.SeqLen-1)
	}
	sampler, err := opts.NewSampler(m.Config.VocabSize)
	if err != nil {
		return run, err
	}
	st := m.NewState()
	t0 := time.Now()
	logits, err := st.Prefill(ids, 0)
	if err != nil {
		return run, err
	}
	forward := time.Since(t0)
	var guide *decoding.Guide
	if c != nil {
		guide = c.NewGuide()
	}
	seq := append([]int(nil), ids...)
	var text bytes.Buffer
	prev, pos := ids[len(ids)-1], len(ids)-1
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return run, err
		}
		budget := m.Config.SeqLen - pos - 1
		if opts.MaxNewTokens > 0 {
			budget = min(budget, opts.MaxNewTokens-n+1)
		}
		step := GuidedStep{Forward: forward, Allowed: len(logits)}
		masked := logits
		if guide != nil {
			t := time.Now()
			var ok bool
			masked, ok = guide.Mask(logits, prev, budget)
			step.Mask = time.Since(t)
			if err := guide.Err(); err != nil {
				return run, err
			}
			if !ok {
				run.Finish = decoding.FinishUnsatisfiable
				break
			}
			allowed, err := guide.Tokens(prev, budget)
			if err != nil {
				return run, err
			}
			step.Allowed = allowed.Count()
			probs := decoding.Softmax(logits)
			for _, id := range allowed.IDs() {
				step.Kept += probs[id]
			}
		} else {
			step.Kept = 1
		}
		t := time.Now()
		id, err := sampler.Sample(masked, seq[1:]...)
		step.Sample = time.Since(t)
		if err != nil {
			return run, fmt.Errorf("step %d: %w", n, err)
		}
		if guide != nil {
			if err := guide.Accept(prev, id); err != nil {
				return run, fmt.Errorf("step %d: %w", n, err)
			}
		}
		step.ID = id
		seq = append(seq, id)
		if tok.IsEnd(id) {
			run.Steps = append(run.Steps, step)
			run.Finish = decoding.FinishEOS
			break
		}
		step.Piece = tok.Decode(prev, id)
		text.WriteString(step.Piece)
		run.Steps = append(run.Steps, step)
		switch {
		case guide != nil && guide.Done():
			run.Finish = decoding.FinishConstraint
		case n == opts.MaxNewTokens:
			run.Finish = decoding.FinishLength
		case pos+2 >= m.Config.SeqLen:
			run.Finish = decoding.FinishContext
		}
		if run.Finish != "" {
			break
		}
		t = time.Now()
		if logits, err = st.Forward(id, pos+1); err != nil {
			return run, fmt.Errorf("step %d: %w", n, err)
		}
		forward = time.Since(t)
		prev, pos = id, pos+1
	}
	run.Text = text.String()
	return run, nil
}

// StepCost is the mean time per generated token of a run's parts, in
// milliseconds.
type StepCost struct {
	Forward, Mask, Sample float64
}

// Cost averages the steps' times, the first forward pass (the prompt's
// prefill) left out: it is not a generation step.
func Cost(steps []GuidedStep) StepCost {
	var c StepCost
	if len(steps) == 0 {
		return c
	}
	for i, s := range steps {
		if i > 0 {
			c.Forward += Milliseconds(s.Forward)
		}
		c.Mask += Milliseconds(s.Mask)
		c.Sample += Milliseconds(s.Sample)
	}
	n := float64(len(steps))
	if len(steps) > 1 {
		c.Forward /= n - 1
	}
	c.Mask /= n
	c.Sample /= n
	return c
}

// Share returns the share of texts for which ok is true (0 for no texts).
func Share(texts []string, ok func(text string) bool) float64 {
	if len(texts) == 0 {
		return 0
	}
	n := 0
	for _, t := range texts {
		if ok(t) {
			n++
		}
	}
	return float64(n) / float64(len(texts))
}

// JSONString returns the string that the JSON object text holds under
// key, and false when text is not a JSON object or has no string there.
func JSONString(text, key string) (string, bool) {
	var obj map[string]any
	if json.Unmarshal([]byte(text), &obj) != nil {
		return "", false
	}
	s, ok := obj[key].(string)
	return s, ok
}

// Larger returns, element by element, the larger of a and b, which must
// have the same length: a ranking of tokens by either of two
// distributions (for notebook.TopTokenBars).
func Larger(a, b []float64) []float64 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("experiment.Larger: %d values and %d", len(a), len(b)))
	}
	out := make([]float64, len(a))
	for i := range a {
		out[i] = max(a[i], b[i])
	}
	return out
}

// ClosesString reads text as it would continue the inside of a JSON
// string (escapes included) and reports whether it writes the closing
// quote; rest is what the text writes after that quote.
func ClosesString(text string) (closes bool, rest string) {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++ // the escaped byte is part of the string
		case '"':
			return true, text[i+1:]
		}
	}
	return false, ""
}
