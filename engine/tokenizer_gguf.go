package engine

import (
	"errors"
	"fmt"

	"github.com/tokenbytoken/course/engine/gguf"
	"github.com/tokenbytoken/course/engine/internal/bpe"
	"github.com/tokenbytoken/course/engine/internal/chat"
)

// TokenizerFromGGUF reads the tokenizer a GGUF file describes in its
// tokenizer.ggml.* keys: byte-level BPE ("gpt2", with its pre-tokenizer's
// rules for splitting text into words) or SentencePiece ("llama"), its
// special tokens, and whether a prompt starts with BOS. It gives the same
// token ids as llama.cpp.
func TokenizerFromGGUF(f *gguf.File) (*Tokenizer, error) {
	b, err := bpe.FromGGUF(f)
	if err != nil {
		return nil, err
	}
	return &Tokenizer{bpe: b, maxLen: -1, chat: readChatTemplate(f)}, nil
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

// EncodeText is Encode with special tokens taken as plain text: a GGUF
// model's "<|im_end|>" written in text is then the characters "<|im_end|>".
// llama2.c's tokenizers have no such tokens, and encode as Encode does.
func (t *Tokenizer) EncodeText(text string, bos, eos bool) ([]int, error) {
	return t.encode(text, bos, eos, false)
}

// IsControl reports whether id is a control token of a GGUF model's
// vocabulary (such as <|im_start|>), which stands for no text of its own.
func (t *Tokenizer) IsControl(id int) bool { return t.bpe.IsControl(id) }

// EndName is how a GGUF model's vocabulary writes the end token id (such
// as <|im_end|>, an instruction-tuned model's end of turn), or "" for a
// llama2.c tokenizer, whose end is simply end-of-text.
func (t *Tokenizer) EndName(id int) string { return t.bpe.EndName(id) }
