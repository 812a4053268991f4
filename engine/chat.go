package engine

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/tokenbytoken/course/engine/gguf"
	"github.com/tokenbytoken/course/engine/internal/chat"
)

// An instruction-tuned model was trained on conversations written out in
// one fixed format, its chat template: each turn marked by special tokens
// (ChatML's <|im_start|>user … <|im_end|>), and the assistant's turn begun
// for the model to continue. It answers well only when asked in that
// format, and it ends its answer with its end-of-turn token. A GGUF file
// carries the template (tokenizer.chat_template, a Jinja template); the
// engine renders it as llama.cpp and Hugging Face's transformers do.

// Message is one turn of a conversation: Role is "system", "user" or
// "assistant", Content what was said.
type Message = chat.Message

// chatTemplate is a GGUF model's chat template, with the text of its BOS
// and EOS tokens, which templates may write.
type chatTemplate struct {
	tmpl     *chat.Template
	bos, eos string
	err      error // why the model has no usable template
}

// readChatTemplate reads f's chat template, or notes why there is none.
func readChatTemplate(f *gguf.File) chatTemplate {
	tmpl, bos, eos, err := chat.FromGGUF(f)
	if err != nil {
		if missing(err) {
			err = errors.New("the model's file has no chat template (tokenizer.chat_template): it is not a chat model")
		} else {
			err = fmt.Errorf("the model's chat template: %w", err)
		}
		return chatTemplate{err: err}
	}
	return chatTemplate{tmpl: tmpl, bos: bos, eos: eos}
}

// ChatPrompt renders a conversation with the model's own chat template:
// the text the model was trained to continue with its answer. With
// addGenerationPrompt it ends with the assistant's turn begun. Special
// tokens in it ("<|im_start|>") are those tokens when Encode reads it.
// A llama2.c model, or a GGUF model without a template, has no chat
// format, and gets an error.
func (t *Tokenizer) ChatPrompt(messages []Message, addGenerationPrompt bool) (string, error) {
	if t == nil {
		return "", errors.New("no tokenizer (nil *Tokenizer)")
	}
	if t.gguf == nil {
		return "", errors.New("a llama2.c model has no chat template: chat needs an instruction-tuned model, such as SmolLM2")
	}
	if t.chat.err != nil {
		return "", t.chat.err
	}
	return t.chat.tmpl.Render(messages, addGenerationPrompt, t.chat.bos, t.chat.eos)
}

// Chat generates the model's answer to a conversation: Generate, on the
// conversation rendered by ChatPrompt with the assistant's turn begun.
// The answer ends at the model's end-of-turn token (FinishEOS; the last
// step's Stats.EndToken names it), unless a limit or a stop condition
// comes first. Steps carry the answer alone.
func Chat(ctx context.Context, m *Model, tok *Tokenizer, messages []Message, opts Options) iter.Seq2[Step, error] {
	prompt, err := tok.ChatPrompt(messages, true)
	if err != nil {
		return func(yield func(Step, error) bool) { yield(Step{}, err) }
	}
	return Generate(ctx, m, tok, prompt, opts)
}
