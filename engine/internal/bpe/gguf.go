package bpe

import (
	"errors"
	"fmt"

	"github.com/tokenbytoken/course/engine/gguf"
)

// SpecFromGGUF reads a tokenizer's Spec from a GGUF file's
// tokenizer.ggml.* keys, with llama.cpp's defaults (Defaults) for the keys
// the file leaves out. A key of the wrong type is an error, as is a file
// without a vocabulary.
func SpecFromGGUF(f *gguf.File) (Spec, error) {
	model, err := f.String("tokenizer.ggml.model")
	if err != nil {
		return Spec{}, fmt.Errorf("no tokenizer: %w", err)
	}
	pre, err := optional(f.String("tokenizer.ggml.pre"))
	if err != nil {
		return Spec{}, err
	}
	s := Defaults(model, pre)
	if s.Tokens, err = f.Strings("tokenizer.ggml.tokens"); err != nil {
		return Spec{}, err
	}
	if s.Merges, err = optional(f.Strings("tokenizer.ggml.merges")); err != nil {
		return Spec{}, err
	}
	types, err := optional(f.Ints("tokenizer.ggml.token_type"))
	if err != nil {
		return Spec{}, err
	}
	if types != nil {
		s.Types = make([]int32, len(types))
		for i, v := range types {
			if v < -1<<31 || v > 1<<31-1 {
				return Spec{}, fmt.Errorf("tokenizer.ggml.token_type[%d] = %d is not a token type", i, v)
			}
			s.Types[i] = int32(v)
		}
	}
	if s.Scores, err = optional(f.Floats("tokenizer.ggml.scores")); err != nil {
		return Spec{}, err
	}
	for key, id := range map[string]*int{
		"bos_token_id": &s.BOS, "eos_token_id": &s.EOS, "unknown_token_id": &s.UNK,
		"padding_token_id": &s.PAD, "eot_token_id": &s.EOT, "eom_token_id": &s.EOM,
	} {
		v, err := f.Int("tokenizer.ggml." + key)
		if isMissing(err) {
			continue
		}
		if err != nil {
			return Spec{}, err
		}
		if v < -1 || v >= int64(len(s.Tokens)) {
			return Spec{}, fmt.Errorf("tokenizer.ggml.%s = %d is outside the vocabulary of %d tokens", key, v, len(s.Tokens))
		}
		*id = int(v)
	}
	for key, b := range map[string]*bool{
		"add_bos_token": &s.AddBOS, "add_eos_token": &s.AddEOS, "add_space_prefix": &s.AddSpacePrefix,
	} {
		v, err := f.Bool("tokenizer.ggml." + key)
		if isMissing(err) {
			continue
		}
		if err != nil {
			return Spec{}, err
		}
		*b = v
	}
	return s, nil
}

// FromGGUF is New(SpecFromGGUF(f)).
func FromGGUF(f *gguf.File) (*Tokenizer, error) {
	s, err := SpecFromGGUF(f)
	if err != nil {
		return nil, err
	}
	return New(s)
}

// optional turns a missing key into the zero value.
func optional[T any](v T, err error) (T, error) {
	if isMissing(err) {
		var zero T
		return zero, nil
	}
	return v, err
}

func isMissing(err error) bool {
	var ke *gguf.KeyError
	return errors.As(err, &ke) && ke.Missing
}
