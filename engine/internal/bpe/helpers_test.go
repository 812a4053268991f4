package bpe

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// byteLevelSpec returns a small byte-level BPE vocabulary: the 256 byte
// characters, then the merges given (each "left right", whose result is
// added as a token), then the extra tokens, with the given types.
func byteLevelSpec(pre string, merges []string, extra map[string]TokenType) Spec {
	s := Defaults("gpt2", pre)
	s.AddBOS = false // there is no BOS unless a test adds one
	for b := 0; b < 256; b++ {
		s.Tokens = append(s.Tokens, string(byteChar[b]))
		s.Types = append(s.Types, int32(Normal))
	}
	seen := map[string]bool{}
	for _, t := range s.Tokens {
		seen[t] = true
	}
	for _, m := range merges {
		i := strings.IndexByte(m[1:], ' ') + 1
		l, r := m[:i], m[i+1:]
		if !seen[l+r] {
			seen[l+r] = true
			s.Tokens = append(s.Tokens, l+r)
			s.Types = append(s.Types, int32(Normal))
		}
	}
	s.Merges = merges
	for _, text := range slices.Sorted(maps.Keys(extra)) {
		s.Tokens = append(s.Tokens, text)
		s.Types = append(s.Types, int32(extra[text]))
	}
	return s
}

func mustNew(t testing.TB, s Spec) *Tokenizer {
	t.Helper()
	tok, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// tokens returns the vocabulary spelling of ids, to compare with what a
// test works out by hand.
func tokens(tok *Tokenizer, ids []int) []string {
	out := []string{}
	for _, id := range ids {
		out = append(out, tok.Token(id))
	}
	return out
}

// encode is Encode as llama.cpp's tokenize is called: addSpecial asks for
// BOS and EOS at once. A GGUF vocabulary spells any text, so it does not
// fail.
func encode(tok *Tokenizer, text string, addSpecial, parseSpecial bool) []int {
	ids, err := tok.Encode(text, addSpecial, addSpecial, parseSpecial)
	if err != nil {
		panic(err)
	}
	return ids
}
