package chat

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tokenbytoken/course/engine/gguf"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
)

// reference is testdata/reference.json, written by testdata/reference.py
// with Hugging Face transformers.
type reference struct {
	Templates map[string]struct {
		BOS     string                `json:"bos_token"`
		EOS     string                `json:"eos_token"`
		Renders map[string]refOutcome `json:"renders"`
	} `json:"templates"`
	Features map[string]refOutcome `json:"features"`
}

// refOutcome is one rendering: its text, or the exception Python raised
// (as "Type: message") while rendering or compiling.
type refOutcome struct {
	Text        *string `json:"text"`
	Error       *string `json:"error"`
	SyntaxError *string `json:"syntax_error"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func loadReference(t *testing.T) *reference {
	var ref reference
	readJSON(t, "testdata/reference.json", &ref)
	if len(ref.Templates) == 0 || len(ref.Features) == 0 {
		t.Fatal("testdata/reference.json has no templates or no features")
	}
	return &ref
}

func loadConversations(t *testing.T) map[string][]Message {
	var raw map[string][]map[string]string
	readJSON(t, "testdata/conversations.json", &raw)
	out := map[string][]Message{}
	for name, msgs := range raw {
		conv := []Message{}
		for _, m := range msgs {
			conv = append(conv, Message{Role: m["role"], Content: m["content"]})
		}
		out[name] = conv
	}
	return out
}

// fixedClock makes strftime_now read the time reference.py renders with.
func fixedClock(t *testing.T) {
	saved := now
	now = func() time.Time { return time.Date(2024, 7, 26, 12, 0, 0, 0, time.Local) }
	t.Cleanup(func() { now = saved })
}

// pythonError splits Python's "Type: message".
func pythonError(s string) (typ, msg string) {
	typ, msg, _ = strings.Cut(s, ": ")
	return typ, msg
}

// checkOutcome compares a rendering with the reference's: the same text,
// or an error of the same kind. An exception raised by raise_exception
// (TemplateError) must come back as a Raised RenderError with the
// template's message; Jinja's undefined and type errors as RenderErrors
// with Python's message.
func checkOutcome(t *testing.T, what string, want refOutcome, got string, err error) {
	t.Helper()
	switch {
	case want.Text != nil:
		if err != nil {
			t.Errorf("%s: %v, want %q", what, err, *want.Text)
		} else if got != *want.Text {
			t.Errorf("%s:\n got %q\nwant %q", what, got, *want.Text)
		}
	case want.SyntaxError != nil:
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%s: got %q, %v; want a syntax error like Jinja's %s", what, got, err, *want.SyntaxError)
		}
	case want.Error != nil:
		var re *RenderError
		if !errors.As(err, &re) {
			t.Errorf("%s: got %q, %v; want a render error like Jinja's %s", what, got, err, *want.Error)
			return
		}
		typ, msg := pythonError(*want.Error)
		switch typ {
		case "TemplateError":
			if !re.Raised || re.Msg != msg {
				t.Errorf("%s: got %#v, want the template's own error %q", what, re, msg)
			}
		case "UndefinedError", "TypeError", "ZeroDivisionError":
			if re.Raised || re.Msg != msg {
				t.Errorf("%s: got message %q (raised %v), want Python's %q", what, re.Msg, re.Raised, msg)
			}
		default:
			// The sandbox's errors (unsafe methods, big ranges) have
			// their own wording: any render error will do.
			if re.Raised {
				t.Errorf("%s: got %#v, not raised by the template", what, re)
			}
		}
	default:
		t.Fatalf("%s: the reference has no outcome", what)
	}
}

func renderAll(t *testing.T, name string, tmpl *Template, ref *reference, convs map[string][]Message) {
	t.Helper()
	r, ok := ref.Templates[name]
	if !ok {
		t.Fatalf("no reference renderings for %s", name)
	}
	if len(r.Renders) != 2*len(convs) {
		t.Fatalf("%s: %d reference renderings for %d conversations", name, len(r.Renders), len(convs))
	}
	for conv, msgs := range convs {
		for _, gen := range []bool{false, true} {
			key := conv + "/nogen"
			if gen {
				key = conv + "/gen"
			}
			got, err := tmpl.Render(msgs, gen, r.BOS, r.EOS)
			checkOutcome(t, name+" "+key, r.Renders[key], got, err)
		}
	}
}

// TestTemplates renders well-known models' chat templates as transformers
// does.
func TestTemplates(t *testing.T) {
	fixedClock(t)
	ref := loadReference(t)
	convs := loadConversations(t)
	files, err := filepath.Glob("testdata/templates/*.jinja")
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates in testdata/templates: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jinja")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			tmpl, err := Parse(string(src))
			if err != nil {
				t.Fatal(err)
			}
			renderAll(t, name, tmpl, ref, convs)
		})
	}
}

func openSmolLM2(t *testing.T) (*Template, string, string) {
	t.Helper()
	f, err := gguf.Open(testmodel.Path(t, testmodel.SmolLM2))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tmpl, bos, eos, err := FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	return tmpl, bos, eos
}

// TestSmolLM2 renders SmolLM2-135M-Instruct's own template, read from the
// model, as transformers does.
func TestSmolLM2(t *testing.T) {
	tmpl, bos, eos := openSmolLM2(t)
	// The model's BOS and EOS, ids 1 and 2, are these (its GGUF header).
	if bos != "<|im_start|>" || eos != "<|im_end|>" {
		t.Errorf("BOS, EOS = %q, %q; want <|im_start|>, <|im_end|>", bos, eos)
	}
	renderAll(t, "HuggingFaceTB-SmolLM2-135M-Instruct", tmpl, loadReference(t), loadConversations(t))
}

// TestSmolLM2LlamaCpp renders the conversations behind the chat prompts
// llama.cpp rendered with SmolLM2's template for its reference outputs,
// and checks that the prompts are the same, character for character.
func TestSmolLM2LlamaCpp(t *testing.T) {
	// The recordings lie beside the checkout, in shared/models/smollm2.
	root, err := testmodel.Root()
	if err != nil {
		t.Fatal(err)
	}
	fd, err := os.Open(filepath.Join(root, "..", "shared", "models", "smollm2", "llamacpp-greedy.jsonl"))
	if err != nil {
		t.Skipf("llama.cpp's reference outputs are not on this machine: %v", err)
	}
	defer fd.Close()
	var prompts []string
	sc := bufio.NewScanner(fd)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var line struct {
			Prompt string `json:"prompt"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line.Prompt, "<|im_start|>") {
			prompts = append(prompts, line.Prompt)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	tmpl, bos, eos := openSmolLM2(t)
	// The messages each recorded prompt was made from; four of them have
	// no system message, so the template adds its default one.
	convs := [][]Message{
		{{"user", "What is the capital of France?"}},
		{{"user", "Write a haiku about the sea."}},
		{{"user", "Give me a JSON object with the name and age of a fictional person."}},
		{{"system", "You are a concise teacher."}, {"user", "Explain what a token is in one sentence."}},
		{{"user", "List three colors."}},
	}
	var got []string
	for _, c := range convs {
		s, err := tmpl.Render(c, true, bos, eos)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	sort.Strings(got)
	sort.Strings(prompts)
	if len(got) != len(prompts) {
		t.Fatalf("%d chat prompts recorded, %d conversations here", len(prompts), len(got))
	}
	for i := range got {
		if got[i] != prompts[i] {
			t.Errorf("rendered %q\nllama.cpp %q", got[i], prompts[i])
		}
	}
}

// TestFeatures renders small templates, each using one feature of Jinja,
// as transformers' Jinja does.
func TestFeatures(t *testing.T) {
	fixedClock(t)
	ref := loadReference(t)
	var sources map[string]string
	readJSON(t, "testdata/features.json", &sources)
	if len(sources) != len(ref.Features) {
		t.Fatalf("%d features, %d reference outcomes: run testdata/reference.py", len(sources), len(ref.Features))
	}
	msgs := []Message{{"system", " sys "}, {"user", "Hi"}, {"assistant", "Hello"}, {"user", "Q?"}}
	for name, src := range sources {
		want, ok := ref.Features[name]
		if !ok {
			t.Errorf("%s: no reference outcome", name)
			continue
		}
		var got string
		tmpl, err := Parse(src)
		if err == nil {
			got, err = tmpl.Render(msgs, true, "<s>", "</s>")
		}
		checkOutcome(t, name, want, got, err)
	}
}

// TestSyntaxErrors checks where and why bad templates are refused. The
// positions are counted by hand: lines and columns from 1, columns in
// characters.
func TestSyntaxErrors(t *testing.T) {
	for _, c := range []struct {
		src       string
		line, col int
		msg       string
	}{
		{"{{ a ? b }}", 1, 6, "unexpected character '?'"},
		{"Hello\n  {% if x %}\n{% endfor %}", 3, 4, "unexpected 'endfor': expected 'elif', 'else' or 'endif' to close the 'if' on line 2"},
		{"line one\n{% for m in messages %}\n{{ m }}\n", 3, 8, "unexpected end of template: expected 'endfor' or 'else' to close the 'for' on line 2"},
		{"{{ x | nosuch }}", 1, 8, "no filter named 'nosuch'"},
		{"{% if x is nosuch %}{% endif %}", 1, 12, "no test named 'nosuch'"},
		{"a\r\n\r\n   {{ 'abc }}", 3, 7, "string literal is not closed"},
		{"é漢{{ ) }}", 1, 6, "unexpected ')'"},
		{"{% break %}", 1, 4, "'break' outside a for loop"},
		{"{% for x in y %}{% macro m() %}{% continue %}{% endmacro %}{% endfor %}", 1, 35, "'continue' outside a for loop"},
		{"{% frobnicate %}", 1, 4, "unknown tag 'frobnicate'"},
		{"{% include 'x.jinja' %}", 1, 4, "the 'include' tag is not supported in chat templates"},
		{"x\n{# note", 2, 1, "comment is not closed: missing '#}'"},
		{"{{ 1 + }}", 1, 8, "expected an expression, found '}}'"},
		{"{% set x = 1 }}", 1, 14, "unexpected '}'"},
		{"{{ f(a=1, 2) }}", 1, 11, "positional argument follows keyword argument"},
		{"{% for x messages %}", 1, 10, "expected 'in' in the for loop, found 'messages'"},
		// A parenthesis nests three levels (expression, not, unary), so
		// the 334th passes the limit of 1000.
		{"{{ " + strings.Repeat("(", 400) + "1" + strings.Repeat(")", 400) + " }}", 1, 337, "tags or expressions nested more than 1000 deep"},
		// An if tag nests one level and its condition three more, so the
		// condition of the 998th passes the limit, at column 997*10+7.
		{strings.Repeat("{% if x %}", 1001), 1, 9977, "tags or expressions nested more than 1000 deep"},
	} {
		_, err := Parse(c.src)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) = %v, want a *SyntaxError", c.src, err)
			continue
		}
		if se.Line != c.line || se.Column != c.col || se.Msg != c.msg {
			t.Errorf("Parse(%q): line %d, column %d: %q; want line %d, column %d: %q", c.src, se.Line, se.Column, se.Msg, c.line, c.col, c.msg)
		}
		if !strings.Contains(err.Error(), "line ") {
			t.Errorf("Parse(%q): %q does not say where", c.src, err)
		}
	}
}

// TestRenderErrors checks failures while rendering, with hand-counted
// positions, and the limits that bound a hostile template.
func TestRenderErrors(t *testing.T) {
	msgs := []Message{{"user", "Hi"}, {"user", "again"}}
	for _, c := range []struct {
		src       string
		line, col int
		msg       string
		raised    bool
	}{
		{"{% for m in messages %}{% if loop.index0 % 2 == 1 and m.role == 'user' %}\n  {{- raise_exception('Roles must alternate, at ' ~ loop.index0) }}{% endif %}{% endfor %}",
			2, 7, "Roles must alternate, at 1", true},
		{"{{ messages | groupby('role') }}", 1, 15, "the filter 'groupby' is not supported in chat templates", false},
		{"{{ messages[0].nope.x }}", 1, 21, "'dict object' has no attribute 'nope'", false},
		{"{{ messages[0]['role'] + 1 }}", 1, 24, `can only concatenate str (not "int") to str`, false},
		{"{% set ns = 3 %}{% set ns.x = 1 %}", 1, 24, "cannot set ns.x: ns is of type int, not a namespace", false},
		{"{{ range(100001) | length }}", 1, 4, "range of 100001 items is too big: the limit is 100000", false},
		{"{{ 2 ** 64 }}", 1, 6, "integer overflow in **", false},
		{"{{ 'x' * 100000000000 }}", 1, 8, "a value would exceed %d bytes or items", false},
		{"{% for i in range(100000) %}{{ 'xxxxxxxxxxxxxxxxxxxx' }}{% endfor %}", 1, 32, "the output would exceed %d bytes", false},
		{"{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", 1, 32, "the template ran for more than 4194304 steps", false},
		{"{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", 1, 19, "macros nested more than 64 deep", false},
		{"{% set l = [1] %}{{ l.append(2) }}", 1, 23, "'list.append' would change a value in place, which chat templates may not do", false},
		{"{{ strftime_now('%Q') }}", 1, 4, "strftime directive '%Q' is not supported", false},
	} {
		tmpl, err := Parse(c.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.src, err)
			continue
		}
		out, err := tmpl.Render(msgs, false, "", "")
		if strings.Contains(c.msg, "%d") {
			// Render's documented limit: 1 MiB plus 16 bytes for each
			// byte of the template and the messages.
			c.msg = fmt.Sprintf(c.msg, 1<<20+16*(len(c.src)+len("user")+len("Hi")+len("user")+len("again")))
		}
		var re *RenderError
		if !errors.As(err, &re) {
			t.Errorf("Render(%q) = %q, %v; want a *RenderError", c.src, out, err)
			continue
		}
		if re.Line != c.line || re.Column != c.col || re.Msg != c.msg || re.Raised != c.raised {
			t.Errorf("Render(%q): %#v;\nwant line %d, column %d: %q, raised %v", c.src, re, c.line, c.col, c.msg, c.raised)
		}
	}
}

// TestLimitScalesWithInput checks that the output limit follows the size
// of the input, so that long conversations render.
func TestLimitScalesWithInput(t *testing.T) {
	tmpl, err := Parse("{% for m in messages %}{{ m.content }}{% endfor %}")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("y", 3<<20)
	out, err := tmpl.Render([]Message{{"user", long}}, false, "", "")
	if err != nil || out != long {
		t.Fatalf("a %d-byte message: %d bytes, %v", len(long), len(out), err)
	}
}

// TestConcurrentRender renders one template from several goroutines.
func TestConcurrentRender(t *testing.T) {
	src, err := os.ReadFile("testdata/templates/meta-llama-Llama-3.1-8B-Instruct.jinja")
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := Parse(string(src))
	if err != nil {
		t.Fatal(err)
	}
	msgs := []Message{{"system", "Be brief."}, {"user", "Hi"}}
	want, err := tmpl.Render(msgs, true, "<|begin_of_text|>", "<|eot_id|>")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Go(func() {
			for range 50 {
				got, err := tmpl.Render(msgs, true, "<|begin_of_text|>", "<|eot_id|>")
				if err != nil || got != want {
					errs <- got
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for got := range errs {
		t.Errorf("concurrent render differs: %q", got)
	}
}

// BenchmarkRender renders Llama 3.1's template, one of the longer ones,
// for a four-message conversation.
func BenchmarkRender(b *testing.B) {
	src, err := os.ReadFile("testdata/templates/meta-llama-Llama-3.1-8B-Instruct.jinja")
	if err != nil {
		b.Fatal(err)
	}
	tmpl, err := Parse(string(src))
	if err != nil {
		b.Fatal(err)
	}
	msgs := []Message{{"system", "Be brief."}, {"user", "Hi"}, {"assistant", "Hello!"}, {"user", "What is a token?"}}
	for b.Loop() {
		if _, err := tmpl.Render(msgs, true, "<|begin_of_text|>", "<|eot_id|>"); err != nil {
			b.Fatal(err)
		}
	}
}
