package engine

import (
	"errors"

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
	if t.chat.err != nil {
		return "", t.chat.err
	}
	return t.chat.tmpl.Render(messages, addGenerationPrompt, t.chat.bos, t.chat.eos)
}
