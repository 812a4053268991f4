package cot

import (
	"fmt"

	"github.com/tokenbytoken/course/engine"
)

// Alphabet is every character the task writes, one token each.
const Alphabet = " 0123456789+=so"

// NewTokenizer builds the task's character-level tokenizer in llama2.c's
// layout: <unk>, <s> and </s> at ids 0, 1 and 2, the 256 byte-fallback
// tokens <0x00>…<0xFF> (so any text can be encoded, one token per byte),
// then one token per character of Alphabet. No two tokens merge, so a text
// is always one token per character, after the leading space that Encode
// adds.
func NewTokenizer() (*engine.Tokenizer, error) {
	pieces := []string{"<unk>", "<s>", "</s>"}
	for b := range 256 {
		pieces = append(pieces, fmt.Sprintf("<0x%02X>", b))
	}
	for _, c := range Alphabet {
		pieces = append(pieces, string(c))
	}
	scores := make([]float32, len(pieces))
	return engine.NewTokenizer(pieces, scores, 0)
}
