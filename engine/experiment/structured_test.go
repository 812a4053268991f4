package experiment

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/constrain"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
)

const personSchema = `{"type": "object", "properties": {"name": {"type": "string", "minLength": 1}, "age": {"type": "integer", "minimum": 0, "maximum": 120}}, "required": ["name", "age"]}`

func TestValidatorCheck(t *testing.T) {
	v, err := NewValidator(personSchema)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		text string
		want string // "" for valid, else a part of the error
	}{
		{`{"name": "Ada", "age": 36}`, ""},
		{"{\n  \"name\": \"Ada\",\n  \"age\": 36,\n  \"job\": \"poet\"\n}\n", ""}, // other properties are allowed
		{`{"name": "Ada"}`, "not valid"},
		{`{"name": "Ada", "age": "36"}`, "not valid"},
		{`{"name": "", "age": 36}`, "not valid"},
		{`{"name": "Ada", "age": 121}`, "not valid"},
		{"```json\n{\"name\": \"Ada\", \"age\": 36}\n```", "not JSON"},
		{`{"name": "Ada", "age": 36} and more`, "not JSON"},
		{`{"name": "Ada", "age": 3`, "not JSON"},
		{``, "not JSON"},
	} {
		err := v.Check(c.text)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("Check(%q) = %v, want valid", c.text, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("Check(%q) = %v, want an error saying %q", c.text, err, c.want)
		}
	}
	if got := v.ValidShare([]string{`{"name":"A","age":1}`, `{}`, `nope`, `{"name":"B","age":2}`}); got != 0.5 {
		t.Errorf("ValidShare of 2 valid texts in 4 = %v, want 0.5", got)
	}
	if got := v.ValidShare(nil); got != 0 {
		t.Errorf("ValidShare(nil) = %v, want 0", got)
	}
}

func TestNewValidatorRefuses(t *testing.T) {
	for _, s := range []string{`{"type": `, `{"type": "integer", "minimum": "zero"}`} {
		if _, err := NewValidator(s); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", s)) {
			t.Errorf("NewValidator(%q) = %v, want an error naming the schema", s, err)
		}
	}
}

func TestJSONLexemes(t *testing.T) {
	text := "{\"a\": 1, \"b\":[true,null, -2.5e3], \"c\\\"\": \"x\"}"
	got, err := JSONLexemes(text)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, l := range got {
		if text[l.Start:l.End] != l.Text {
			t.Errorf("lexeme %q at %d..%d, but the text there is %q", l.Text, l.Start, l.End, text[l.Start:l.End])
		}
		texts = append(texts, l.Text)
	}
	want := []string{"{", `"a"`, ":", "1", ",", `"b"`, ":", "[", "true", ",", "null", ",", "-2.5e3", "]", ",", `"c\""`, ":", `"x"`, "}"}
	if !reflect.DeepEqual(texts, want) {
		t.Errorf("JSONLexemes(%q) =\n%q\nwant\n%q", text, texts, want)
	}
	for _, bad := range []struct {
		text, offset string
	}{{`{"a`, "offset 1"}, {`{"a": nope}`, "offset 6"}, {`[1, @]`, "offset 4"}} {
		if _, err := JSONLexemes(bad.text); err == nil || !strings.Contains(err.Error(), bad.offset) {
			t.Errorf("JSONLexemes(%q) = %v, want an error at %s", bad.text, err, bad.offset)
		}
	}
}

func TestCrossingTokens(t *testing.T) {
	pieces := []string{`{"`, "na", `me":`, ` "`, "Ada", `",`, ` "`, "age", `":`, " ", "3", "6", "}"}
	got, err := CrossingTokens(pieces)
	if err != nil {
		t.Fatal(err)
	}
	want := []Crossing{
		{0, `{"`, []string{"{", `"name"`}},
		{2, `me":`, []string{`"name"`, ":"}},
		{5, `",`, []string{`"Ada"`, ","}},
		{8, `":`, []string{`"age"`, ":"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CrossingTokens =\n%+v\nwant\n%+v", got, want)
	}
	// One token over a whole value and two more symbols.
	got, err = CrossingTokens([]string{"[", `1,"x"]`})
	if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0].Lexemes, []string{"1", ",", `"x"`, "]"}) {
		t.Errorf("CrossingTokens of [ and 1,\"x\"] = %+v, %v", got, err)
	}
	if _, err := CrossingTokens([]string{"```json\n", "{}"}); err == nil {
		t.Error("CrossingTokens of a Markdown fence: no error")
	}
}

func TestCost(t *testing.T) {
	ms := time.Millisecond
	steps := []GuidedStep{
		{Forward: 100 * ms, Mask: 1 * ms, Sample: 2 * ms}, // the prefill: left out of Forward
		{Forward: 10 * ms, Mask: 3 * ms, Sample: 2 * ms},
		{Forward: 20 * ms, Mask: 2 * ms, Sample: 2 * ms},
	}
	if got, want := Cost(steps), (StepCost{Forward: 15, Mask: 2, Sample: 2}); got != want {
		t.Errorf("Cost = %+v, want %+v", got, want)
	}
	if got := Cost(nil); got != (StepCost{}) {
		t.Errorf("Cost(nil) = %+v, want zeros", got)
	}
}

// courseConstraint binds the person schema to the course's model.
func courseConstraint(t *testing.T) (*engine.Model, *engine.Tokenizer, *decoding.Constraint) {
	t.Helper()
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	g, err := constrain.JSONSchema([]byte(personSchema))
	if err != nil {
		t.Fatal(err)
	}
	c, err := decoding.NewConstraint(tok, g)
	if err != nil {
		t.Fatal(err)
	}
	return m, tok, c
}

// TestGuidedGreedy: with temperature 0, every token is the model's best
// among the tokens the constraint allows, and the text validates
// (checked by the jsonschema library). The logits are recomputed by a
// fresh forward pass over the tokens chosen, the masks by the constraint
// itself.
func TestGuidedGreedy(t *testing.T) {
	m, tok, c := courseConstraint(t)
	const prompt = "// a person as JSON\nvar p = `"
	run, err := Guided(context.Background(), m, tok, c, prompt, decoding.Options{MaxNewTokens: 60})
	if err != nil {
		t.Fatal(err)
	}
	if run.Finish != decoding.FinishConstraint {
		t.Errorf("finish %q, want %q (the object closed)", run.Finish, decoding.FinishConstraint)
	}
	v, err := NewValidator(personSchema)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Check(run.Text); err != nil {
		t.Errorf("%q: %v", run.Text, err)
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
	cc := c.Constrain()
	state := cc.Start()
	var joined strings.Builder
	pos := len(ids) - 1
	prev := ids[len(ids)-1]
	for i, s := range run.Steps {
		budget := min(60-i, m.Config.SeqLen-pos-1)
		mask := cc.Allowed(state, budget)
		if s.Allowed != mask.Count() {
			t.Errorf("step %d: Allowed %d, the constraint allows %d", i, s.Allowed, mask.Count())
		}
		best, kept, p := -1, 0.0, decoding.Softmax(logits)
		for _, id := range mask.IDs() {
			kept += p[id]
			if best < 0 || logits[id] > logits[best] {
				best = id
			}
		}
		if math.Abs(s.Kept-kept) > 1e-9 {
			t.Errorf("step %d: Kept %v, the allowed tokens hold %v", i, s.Kept, kept)
		}
		if s.ID != best {
			t.Fatalf("step %d: token %d (%q), but the best allowed token is %d (%q)", i, s.ID, s.Piece, best, tok.Decode(-1, best))
		}
		if s.Piece != tok.Decode(prev, s.ID) {
			t.Errorf("step %d: piece %q is not token %d's text", i, s.Piece, s.ID)
		}
		prev = s.ID
		joined.WriteString(s.Piece)
		if state, err = cc.Advance(state, s.ID); err != nil {
			t.Fatal(err)
		}
		pos++
		if logits, err = st.Forward(s.ID, pos); err != nil {
			t.Fatal(err)
		}
	}
	if joined.String() != run.Text {
		t.Errorf("the pieces join to %q, the text is %q", joined.String(), run.Text)
	}
}

// TestGuidedWithoutConstraint: with no constraint, the loop is plain
// greedy decoding, the engine's.
func TestGuidedWithoutConstraint(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	const prompt = "func main() {"
	run, err := Guided(context.Background(), m, tok, nil, prompt, decoding.Options{MaxNewTokens: 30})
	if err != nil {
		t.Fatal(err)
	}
	want, last := GenerateText(context.Background(), m, tok, prompt, decoding.Options{MaxNewTokens: 30})
	if run.Text != want || run.Finish != last.Finish {
		t.Errorf("Guided without a constraint: %q (%s); decoding.Generate: %q (%s)", run.Text, run.Finish, want, last.Finish)
	}
	for i, s := range run.Steps {
		if s.Allowed != m.Config.VocabSize || s.Kept != 1 || s.Mask != 0 {
			t.Errorf("step %d: Allowed %d, Kept %v, Mask %v; want the whole vocabulary, 1, 0", i, s.Allowed, s.Kept, s.Mask)
		}
	}
}

// TestGuidedSampledTexts: sampled at temperature 1, with several seeds,
// every text validates.
func TestGuidedSampledTexts(t *testing.T) {
	m, tok, c := courseConstraint(t)
	v, err := NewValidator(personSchema)
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(4) {
		run, err := Guided(context.Background(), m, tok, c, "p := ", decoding.Options{MaxNewTokens: 40, Temperature: 1, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Check(run.Text); err != nil {
			t.Errorf("seed %d, %q (%s): %v", seed, run.Text, run.Finish, err)
		}
	}
}

func TestGuidedRefuses(t *testing.T) {
	m, tok, c := courseConstraint(t)
	ctx := context.Background()
	if _, err := Guided(ctx, nil, tok, c, "x", decoding.Options{}); err == nil {
		t.Error("no model: no error")
	}
	if _, err := Guided(ctx, m, tok, c, "x", decoding.Options{Temperature: -1}); err == nil || !strings.Contains(err.Error(), "Temperature") {
		t.Errorf("temperature -1: %v, want an error naming Temperature", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Guided(cancelled, m, tok, c, "x", decoding.Options{}); err == nil {
		t.Error("a cancelled context: no error")
	}
}

// TestSamples: the i-th sample is what decoding.Generate writes with seed
// opts.Seed+i.
func TestSamples(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	opts := decoding.Options{MaxNewTokens: 12, Temperature: 1, Seed: 5}
	texts, finish, err := Samples(context.Background(), m, tok, "func f() {", 3, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		opts.Seed = 5 + uint64(i)
		want, last := GenerateText(context.Background(), m, tok, "func f() {", opts)
		if texts[i] != want || finish[i] != last.Finish {
			t.Errorf("sample %d: %q (%s), want %q (%s)", i, texts[i], finish[i], want, last.Finish)
		}
	}
	if _, _, err := Samples(context.Background(), m, tok, "x", -2, opts); err == nil || !strings.Contains(err.Error(), "-2") {
		t.Errorf("-2 samples: %v, want an error naming -2", err)
	}
}

func TestValidatorSaysWhy(t *testing.T) {
	v, err := NewValidator(personSchema)
	if err != nil {
		t.Fatal(err)
	}
	err = v.Check(`{"name": "Ada", "age": "36"}`)
	if err == nil || !strings.Contains(err.Error(), "/age") || !strings.Contains(err.Error(), "integer") {
		t.Errorf("Check with a string age = %v, want the path /age and the type wanted", err)
	}
}

func TestInvalidAndShare(t *testing.T) {
	v, err := NewValidator(personSchema)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{`{"name":"A","age":1}`, `{}`, `nope`, `{"name":"B","age":2}`}
	if got := v.Invalid(texts); !reflect.DeepEqual(got, []int{1, 2}) {
		t.Errorf("Invalid = %v, want [1 2]", got)
	}
	if got := Share(texts, func(s string) bool { return strings.HasPrefix(s, "{") }); got != 0.75 {
		t.Errorf("Share of texts starting with { = %v, want 0.75", got)
	}
	if got := Share(nil, func(string) bool { return true }); got != 0 {
		t.Errorf("Share(nil) = %v, want 0", got)
	}
}

func TestJSONString(t *testing.T) {
	for _, c := range []struct {
		text, key, want string
		ok              bool
	}{
		{`{"capital": "Paris", "n": 3}`, "capital", "Paris", true},
		{`{"capital": "Paris", "n": 3}`, "n", "", false},
		{`{"capital": "Paris"}`, "country", "", false},
		{`["Paris"]`, "capital", "", false},
		{`{"capital": "Par`, "capital", "", false},
	} {
		if got, ok := JSONString(c.text, c.key); got != c.want || ok != c.ok {
			t.Errorf("JSONString(%q, %q) = %q, %v; want %q, %v", c.text, c.key, got, ok, c.want, c.ok)
		}
	}
}

func TestLarger(t *testing.T) {
	if got := Larger([]float64{1, 0, 0.5}, []float64{0, 2, 0.5}); !reflect.DeepEqual(got, []float64{1, 2, 0.5}) {
		t.Errorf("Larger = %v, want [1 2 0.5]", got)
	}
}

func TestClosesString(t *testing.T) {
	for _, c := range []struct {
		text   string
		closes bool
		rest   string
	}{
		{`"`, true, ""},
		{`",`, true, ","},
		{`", "`, true, `, "`},
		{`a"}`, true, "}"},
		{`abc`, false, ""},
		{`\"`, false, ""},
		{`\\"x`, true, "x"},
		{`\`, false, ""},
	} {
		if closes, rest := ClosesString(c.text); closes != c.closes || rest != c.rest {
			t.Errorf("ClosesString(%q) = %v, %q; want %v, %q", c.text, closes, rest, c.closes, c.rest)
		}
	}
}

// TestGuidedIsGenerate: Guided writes what decoding.Generate writes with
// Options.Constraint, greedy and sampled.
func TestGuidedIsGenerate(t *testing.T) {
	m, tok, c := courseConstraint(t)
	ctx := context.Background()
	for _, opts := range []decoding.Options{{MaxNewTokens: 40}, {MaxNewTokens: 40, Temperature: 1, Seed: 3}, {MaxNewTokens: 40, Temperature: 0.7, TopP: 0.9, Seed: 4}} {
		run, err := Guided(ctx, m, tok, c, "x := ", opts)
		if err != nil {
			t.Fatal(err)
		}
		with := opts
		with.Constraint = c
		want, last := GenerateText(ctx, m, tok, "x := ", with)
		if run.Text != want || run.Finish != last.Finish {
			t.Errorf("%+v: Guided %q (%s), decoding.Generate %q (%s)", opts, run.Text, run.Finish, want, last.Finish)
		}
		if _, err := Guided(ctx, m, tok, c, "x := ", with); err == nil {
			t.Error("a constraint both in c and in opts: no error")
		}
	}
}
