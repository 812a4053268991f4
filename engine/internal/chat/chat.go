package chat

import (
	"fmt"
	"strings"
	"time"

	"github.com/tokenbytoken/course/engine/gguf"
)

// Message is one turn of a conversation.
type Message struct {
	Role    string // "system", "user" or "assistant", as the template expects
	Content string
}

// Template is a model's chat template, parsed once; Render may be called
// any number of times, from several goroutines at once.
type Template struct {
	source string // normalized: line breaks are "\n", one trailing newline dropped
	body   []node
}

// Parse parses a chat template. A template that does not parse, or that
// names a filter or test Jinja does not have, is refused with a
// *SyntaxError giving the line and column.
func Parse(source string) (*Template, error) {
	src := normalize(source)
	body, err := parse(src)
	if err != nil {
		return nil, err
	}
	return &Template{source: src, body: body}, nil
}

// now is the clock strftime_now reads; tests replace it.
var now = time.Now

// Render renders the conversation as the model's prompt, as Hugging Face
// transformers' apply_chat_template and llama.cpp do. The template sees
// messages (a list of dicts with "role" and "content"),
// add_generation_prompt (whether to open the assistant's turn after the
// last message), bos_token and eos_token, and tools and documents, which
// are None.
//
// A failure is a *RenderError: an undefined value used as more than text,
// a type error, a template that calls raise_exception (Raised is then set:
// the template refuses these messages, say because the roles do not
// alternate), or a limit reached. The limits, on output size (a multiple
// of the input's), steps and range sizes, keep a hostile template from
// running long or using memory out of proportion to its input.
func (t *Template) Render(messages []Message, addGenerationPrompt bool, bosToken, eosToken string) (string, error) {
	size := len(t.source) + len(bosToken) + len(eosToken)
	msgs := make([]any, len(messages))
	for i, m := range messages {
		d := newDict()
		d.set("role", m.Role)
		d.set("content", m.Content)
		msgs[i] = d
		size += len(m.Role) + len(m.Content)
	}
	top := newScope(nil)
	top.vars["messages"] = msgs
	top.vars["add_generation_prompt"] = addGenerationPrompt
	top.vars["bos_token"] = bosToken
	top.vars["eos_token"] = eosToken
	top.vars["tools"] = nil
	top.vars["documents"] = nil
	var out strings.Builder
	ev := &evaluator{src: t.source, out: &out, limit: 1<<20 + 16*size, now: now}
	if err := ev.exec(t.body, top); err != nil {
		// The parser refuses break and continue outside loops, so err is
		// a RenderError.
		return "", err
	}
	return out.String(), nil
}

// FromGGUF reads a model's chat template from its GGUF metadata
// (tokenizer.chat_template), with the text of its BOS and EOS tokens,
// which templates print as bos_token and eos_token (empty when the model
// names no such token).
func FromGGUF(f *gguf.File) (tmpl *Template, bosToken, eosToken string, err error) {
	src, err := f.String("tokenizer.chat_template")
	if err != nil {
		return nil, "", "", err
	}
	tmpl, err = Parse(src)
	if err != nil {
		return nil, "", "", err
	}
	tokens, err := f.Strings("tokenizer.ggml.tokens")
	if err != nil {
		return nil, "", "", err
	}
	text := func(key string) (string, error) {
		if _, ok := f.Lookup(key); !ok {
			return "", nil
		}
		id, err := f.Uint(key)
		if err != nil {
			return "", err
		}
		if id >= uint64(len(tokens)) {
			return "", fmt.Errorf("chat: %s is %d, outside the vocabulary of %d tokens", key, id, len(tokens))
		}
		return tokens[id], nil
	}
	if bosToken, err = text("tokenizer.ggml.bos_token_id"); err != nil {
		return nil, "", "", err
	}
	if eosToken, err = text("tokenizer.ggml.eos_token_id"); err != nil {
		return nil, "", "", err
	}
	return tmpl, bosToken, eosToken, nil
}
