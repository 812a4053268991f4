package decoding

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/constrain"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
)

// constrainedRun is what a constrained generation wrote and why it ended.
type constrainedRun struct {
	text   []byte
	ids    []int
	finish FinishReason
}

// generateConstrained runs Generate with the constraint c, and fails the
// test on an error.
func generateConstrained(t testing.TB, m *engine.Model, tok *engine.Tokenizer, c *Constraint, prompt string, opts Options) constrainedRun {
	t.Helper()
	opts.Constraint = c
	var run constrainedRun
	for s, err := range Generate(context.Background(), m, tok, prompt, opts) {
		if err != nil {
			t.Fatal(err)
		}
		run.text = append(run.text, s.Text...)
		if s.ID != NoToken {
			run.ids = append(run.ids, s.ID)
		}
		run.finish = s.Finish
	}
	return run
}

// compileSchema validates with the jsonschema library.
func compileSchema(t testing.TB, schema string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatalf("schema %s: %v", schema, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("schema %s: %v", schema, err)
	}
	return s
}

func validate(t testing.TB, s *jsonschema.Schema, text []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	return s.Validate(v)
}

// randomSchema makes a random schema of the supported subset.
func randomSchema(r *rand.Rand, depth int) string {
	k := r.IntN(9)
	if depth > 2 {
		k = r.IntN(5)
	}
	switch k {
	case 0:
		return `{"type": "string", "maxLength": ` + fmt.Sprint(r.IntN(12)) + `}`
	case 1:
		lo := r.IntN(200) - 100
		return fmt.Sprintf(`{"type": "integer", "minimum": %d, "maximum": %d}`, lo, lo+r.IntN(1000))
	case 2:
		return `{"type": "number"}`
	case 3:
		return `{"type": "boolean"}`
	case 4:
		return `{"enum": ["red", "green", 3, null, {"a": [1]}]}`
	case 5, 6:
		n := 1 + r.IntN(4)
		var props, req []string
		for i := range n {
			name := fmt.Sprintf("p%d", i)
			props = append(props, fmt.Sprintf("%q: %s", name, randomSchema(r, depth+1)))
			if r.IntN(2) == 0 {
				req = append(req, fmt.Sprintf("%q", name))
			}
		}
		return fmt.Sprintf(`{"type": "object", "properties": {%s}, "required": [%s]}`, strings.Join(props, ", "), strings.Join(req, ", "))
	case 7:
		return fmt.Sprintf(`{"type": "array", "items": %s, "maxItems": %d}`, randomSchema(r, depth+1), 1+r.IntN(3))
	default:
		return `{"type": "string", "pattern": "^[A-Z][a-z]{1,6}( [A-Z][a-z]{1,6})?$"}`
	}
}

// TestConstrainedSchemasValidate generates with the course's model under
// random schemas, seeds and samplers, and validates every output with the
// jsonschema library.
func TestConstrainedSchemasValidate(t *testing.T) {
	m, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	schemas := 12
	if testing.Short() {
		schemas = 4
	}
	for i := range schemas {
		schema := randomSchema(r, 0)
		if i == 0 {
			data, err := os.ReadFile("../constrain/testdata/city.json")
			if err != nil {
				t.Fatal(err)
			}
			schema = string(data)
		}
		g, err := constrain.JSONSchema([]byte(schema))
		if err != nil {
			t.Fatalf("schema %s: %v", schema, err)
		}
		c, err := NewConstraint(tok, g)
		if err != nil {
			t.Fatal(err)
		}
		valid := compileSchema(t, schema)
		for seed := range uint64(6) {
			opts := Options{Temperature: 0.5 + float64(seed)*0.2, Seed: seed, MaxNewTokens: 60 + int(seed)*10}
			switch seed % 3 {
			case 1:
				opts.TopP, opts.RepetitionPenalty = 0.9, 1.3
			case 2:
				opts.TopK, opts.MinP, opts.PresencePenalty = 20, 0.05, 0.5
			}
			if seed == 0 {
				opts.Temperature = 0
			}
			run := generateConstrained(t, m, tok, c, "func main() {", opts)
			if run.finish == FinishUnsatisfiable {
				t.Fatalf("schema %s seed %d: unsatisfiable after %q", schema, seed, run.text)
			}
			if err := validate(t, valid, run.text); err != nil {
				t.Errorf("schema %s, seed %d, finish %s: %q does not validate: %v", schema, seed, run.finish, run.text, err)
			}
		}
	}
}

// TestConstrainedRegexps checks outputs against Go's regexp.
func TestConstrainedRegexps(t *testing.T) {
	m, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	patterns := []string{
		`[0-9]{3}-[0-9]{4}`, `(true|false)`, `[a-z]+(, [a-z]+)*\.`, `func [A-Z][a-zA-Z]*\(\) \{`,
		`(?i)hello+ world`, `\d+(\.\d+)?`, `[^\n]{1,20}\n`, `(ab|cd)*e`, `"[^"]*"`, `x|yy|zzz`,
	}
	for _, p := range patterns {
		g, err := constrain.Regexp(p)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		c, err := NewConstraint(tok, g)
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(`^(?:` + p + `)$`)
		for seed := range uint64(5) {
			opts := Options{Temperature: float64(seed) * 0.4, Seed: seed, MaxNewTokens: 40, TopP: 0.95}
			run := generateConstrained(t, m, tok, c, "// ", opts)
			if !re.Match(run.text) {
				t.Errorf("%q seed %d, finish %s: %q does not match", p, seed, run.finish, run.text)
			}
		}
	}
}

// TestConstraintEmptyPrompt starts right after BOS, where the course's
// tokenizer drops a token's leading space.
func TestConstraintEmptyPrompt(t *testing.T) {
	m, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	g, err := constrain.Regexp(`[a-z]+ [a-z]+`)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewConstraint(tok, g)
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(5) {
		run := generateConstrained(t, m, tok, c, "", Options{Temperature: 1, Seed: seed, MaxNewTokens: 12})
		if !regexp.MustCompile(`^[a-z]+ [a-z]+$`).Match(run.text) {
			t.Errorf("seed %d: %q", seed, run.text)
		}
	}
}

// TestConstraintUnsatisfiable: a vocabulary that cannot write the
// language ends at once, never outside it.
func TestConstraintUnsatisfiable(t *testing.T) {
	_, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	g, err := constrain.Regexp(`ab`)
	if err != nil {
		t.Fatal(err)
	}
	v, err := constrain.NewVocabulary([][]byte{[]byte("a"), []byte("c")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &Constraint{c: constrain.New(g, v), tok: tok}
	guide := c.NewGuide()
	logits := []float32{1, 2}
	if _, ok := guide.Mask(logits, 5, 0); !ok {
		t.Fatal("the first step has a token (a) but Mask says none")
	}
	if err := guide.Accept(5, 0); err != nil {
		t.Fatal(err)
	}
	if z, ok := guide.Mask(logits, 5, 0); ok {
		t.Fatalf("after a, no token can write b, but Mask allows %v", z)
	}
}

// TestConstrainedDistribution: with a constraint, the distribution drawn
// from is the model's renormalised over the allowed tokens, on SmolLM2.
func TestConstrainedDistribution(t *testing.T) {
	m, tok, err := loadGGUFWithTokenizer(testmodel.Path(t, testmodel.SmolLM2))
	if err != nil {
		t.Fatal(err)
	}
	g, err := constrain.JSONSchema([]byte(`{"type":"object","properties":{"city":{"type":"string"},"population":{"type":"integer"}},"required":["city","population"]}`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewConstraint(tok, g)
	if err != nil {
		t.Fatal(err)
	}
	prompt, err := tok.ChatPrompt([]engine.Message{{Role: "user", Content: "Describe a city as JSON."}}, true)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := tok.Encode(prompt, true, false)
	if err != nil {
		t.Fatal(err)
	}
	st := m.NewState()
	logits, err := st.Prefill(ids, 0)
	if err != nil {
		t.Fatal(err)
	}
	guide := c.NewGuide()
	prev, pos := ids[len(ids)-1], len(ids)-1
	for step := range 8 {
		masked, ok := guide.Mask(logits, prev, 0)
		if !ok {
			t.Fatal("no token allowed")
		}
		model := Softmax(logits)
		s, err := Options{Temperature: 1, Seed: 1}.NewSampler(len(logits))
		if err != nil {
			t.Fatal(err)
		}
		id, trace, err := s.SampleTrace(masked, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := trace[0].Probs
		allowed := guide.Allowed(prev, 0)
		var mass float64
		for _, a := range allowed.IDs() {
			mass += model[a]
		}
		for i, p := range got {
			want := 0.0
			if allowed.Allowed(i) {
				want = model[i] / mass
			}
			if math.Abs(p-want) > 1e-12*math.Max(want, 1e-30)+1e-300 && math.Abs(p-want) > 1e-15 {
				t.Fatalf("step %d token %d: constrained probability %v, renormalised model probability %v", step, i, p, want)
			}
		}
		if !allowed.Allowed(id) {
			t.Fatalf("step %d: drew token %d, which is not allowed", step, id)
		}
		t.Logf("step %d: %d tokens allowed, holding %.3g of the model's mass; drew %q", step, allowed.Count(), mass, tok.Decode(prev, id))
		if err := guide.Accept(prev, id); err != nil {
			t.Fatal(err)
		}
		if logits, err = st.Forward(id, pos+1); err != nil {
			t.Fatal(err)
		}
		prev, pos = id, pos+1
	}
}

// TestConstrainedSmolLM2 runs the city schema on SmolLM2 in chat, for
// several seeds, and validates what it writes.
func TestConstrainedSmolLM2(t *testing.T) {
	if testing.Short() {
		t.Skip("generates with SmolLM2")
	}
	m, tok, err := loadGGUFWithTokenizer(testmodel.Path(t, testmodel.SmolLM2))
	if err != nil {
		t.Fatal(err)
	}
	schema, err := os.ReadFile("../constrain/testdata/city.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := constrain.JSONSchema(schema)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewConstraint(tok, g)
	if err != nil {
		t.Fatal(err)
	}
	valid := compileSchema(t, string(schema))
	prompt, err := tok.ChatPrompt([]engine.Message{{Role: "user", Content: "Describe a city as JSON."}}, true)
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(3) {
		run := generateConstrained(t, m, tok, c, prompt, Options{Temperature: 0.9, Seed: seed, MaxNewTokens: 120})
		if err := validate(t, valid, run.text); err != nil {
			t.Errorf("seed %d, finish %s: %s does not validate: %v", seed, run.finish, run.text, err)
		}
		t.Logf("seed %d (%s, %d tokens): %s", seed, run.finish, len(run.ids), run.text)
	}
}

// BenchmarkConstrainedSmolLM2 measures, in the same run, what a
// constrained generation on SmolLM2 spends masking the logits and what it
// spends in the model's forward pass, per generated token (the city
// schema, sampling at temperature 0.9). mask-new-state is the cost of a
// state seen for the first time: a walk of the whole vocabulary's trie.
func BenchmarkConstrainedSmolLM2(b *testing.B) {
	m, tok, err := loadGGUFWithTokenizer(testmodel.Path(b, testmodel.SmolLM2))
	if err != nil {
		b.Fatal(err)
	}
	schema, err := os.ReadFile("../constrain/testdata/city.json")
	if err != nil {
		b.Fatal(err)
	}
	g, err := constrain.JSONSchema(schema)
	if err != nil {
		b.Fatal(err)
	}
	prompt, err := tok.ChatPrompt([]engine.Message{{Role: "user", Content: "Describe a city as JSON."}}, true)
	if err != nil {
		b.Fatal(err)
	}
	ids, err := tok.Encode(prompt, true, false)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("generation", func(b *testing.B) {
		c, err := NewConstraint(tok, g)
		if err != nil {
			b.Fatal(err)
		}
		st := m.NewState()
		var maskTime, forwardTime time.Duration
		steps := 0
		seed := uint64(0)
		for b.Loop() {
			b.StopTimer()
			logits, err := st.Prefill(ids, 0)
			if err != nil {
				b.Fatal(err)
			}
			sampler, _ := Options{Temperature: 0.9, Seed: seed}.NewSampler(len(logits))
			seed++
			guide := c.NewGuide()
			b.StartTimer()
			prev, pos := ids[len(ids)-1], len(ids)-1
			for n := 0; n < 100; n++ {
				t0 := time.Now()
				masked, ok := guide.Mask(logits, prev, 100-n)
				maskTime += time.Since(t0)
				if !ok {
					b.Fatal("unsatisfiable")
				}
				id, err := sampler.Sample(masked)
				if err != nil {
					b.Fatal(err)
				}
				steps++
				if tok.IsEnd(id) {
					break
				}
				if err := guide.Accept(prev, id); err != nil {
					b.Fatal(err)
				}
				if guide.Done() {
					break
				}
				t0 = time.Now()
				if logits, err = st.Forward(id, pos+1); err != nil {
					b.Fatal(err)
				}
				forwardTime += time.Since(t0)
				prev, pos = id, pos+1
			}
		}
		b.ReportMetric(float64(maskTime.Nanoseconds())/float64(steps), "mask-ns/token")
		b.ReportMetric(float64(forwardTime.Nanoseconds())/float64(steps), "forward-ns/token")
		b.ReportMetric(float64(steps)/float64(b.N), "tokens/op")
	})
	b.Run("mask-new-state", func(b *testing.B) {
		v, err := tok.ConstraintVocabulary()
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			c := constrain.New(g, v)
			s, ok := c.AdvanceBytes(c.Start(), []byte(`{"name": "Par`))
			if !ok {
				b.Fatal("prefix refused")
			}
			if c.Allowed(s, 0).Count() == 0 {
				b.Fatal("no token allowed inside a string")
			}
		}
	})
	// new-constraint is NewConstraint once the tokenizer's vocabulary is
	// cached (engine's BenchmarkConstraintVocabulary builds it).
	b.Run("new-constraint", func(b *testing.B) {
		for b.Loop() {
			if _, err := NewConstraint(tok, g); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestConstraintVocabularyShared: every call for one tokenizer, from any
// goroutine, returns the one vocabulary built on the first, and it is
// the one built from the tokenizer's texts.
func TestConstraintVocabularyShared(t *testing.T) {
	_, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]*constrain.Vocabulary, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			v, err := tok.ConstraintVocabulary()
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		})
	}
	wg.Wait()
	for i, v := range got {
		if v != got[0] {
			t.Fatalf("call %d returned another vocabulary than call 0", i)
		}
	}
	v := got[0]
	if v.Size() != tok.VocabSize() {
		t.Fatalf("the vocabulary has %d tokens, the tokenizer %d", v.Size(), tok.VocabSize())
	}
	for id := range tok.VocabSize() {
		if v.IsEnd(id) != tok.IsEnd(id) || !bytes.Equal(v.Text(id), tok.TokenBytes(id)) && !tok.IsEnd(id) {
			t.Fatalf("token %d: text %q end %v, the tokenizer says %q end %v", id, v.Text(id), v.IsEnd(id), tok.TokenBytes(id), tok.IsEnd(id))
		}
	}
	c1, err := NewConstraint(tok, mustRegexp(t, `[a-z]+`))
	if err != nil {
		t.Fatal(err)
	}
	if c1.Constrain().Vocabulary() != v {
		t.Error("NewConstraint built its own vocabulary instead of the tokenizer's")
	}
}

func mustRegexp(t *testing.T, re string) *constrain.Grammar {
	t.Helper()
	g, err := constrain.Regexp(re)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestConstraintTooAmbiguous: a grammar too ambiguous to follow ends the
// generation with an AmbiguityError, soon, and the text written before
// it is in the language.
func TestConstraintTooAmbiguous(t *testing.T) {
	m, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		// Every byte may close or open a recursion, with two ways to close.
		"root ::= (r r | r)*\nr ::= ([a-z ] r [a-m ] | [a-z ] r [h-z ] | [a-z ] r | [a-z ])*",
		// Every byte may start a new repetition or go on with the last.
		"root ::= (a | a a | r)*\na ::= [a-z ]\nr ::= ([a-z ] r | [a-z ])*",
	} {
		g, err := constrain.ParseGrammar(src)
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewConstraint(tok, g)
		if err != nil {
			t.Fatal(err)
		}
		var text []byte
		var failed error
		for s, err := range Generate(context.Background(), m, tok, "Once upon", Options{Constraint: c, MaxNewTokens: 60, Temperature: 1, Seed: 1}) {
			if err != nil {
				failed = err
				break
			}
			text = append(text, s.Text...)
		}
		ae, ok := errors.AsType[*constrain.AmbiguityError](failed)
		if !ok {
			t.Fatalf("grammar\n%s\nthe generation ended with %v after %q, not an AmbiguityError", src, failed, text)
		}
		if ae.Line < 2 || ae.Text < len(text) {
			t.Errorf("grammar\n%s\n%v: the error should point at a rule (line 2 or 3) and past the %d bytes written", src, failed, len(text))
		}
		if _, ok, err := c.Constrain().Read(c.Constrain().Start(), text); !ok || err != nil {
			t.Errorf("grammar\n%s\nthe text %q written before the error is not in the language: %v", src, text, err)
		}
	}
}
