package bpe

import (
	"github.com/tokenbytoken/course/engine/internal/testmodel"

	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// fuzzTokenizers are byte-level vocabularies for every pre-tokenizer rule
// set, with a few merges and special tokens, plus SmolLM2's when its model
// file is present.
var fuzzTokenizers = sync.OnceValues(func() (map[string]*Tokenizer, error) {
	merges := append(slices.Clone(helloMerges), "Ġ Ġ", "ĠĠ Ġ", "1 2", "Ċ Ċ", "e s", "' s", "Ġ '")
	extra := map[string]TokenType{"<|im_start|>": Control, "<ud>": UserDefined}
	toks := map[string]*Tokenizer{}
	for _, pre := range []string{"smollm", "llama-bpe", "qwen2", "gpt-2", "default"} {
		tok, err := New(byteLevelSpec(pre, merges, extra))
		if err != nil {
			return nil, err
		}
		toks[pre] = tok
	}
	if root, err := testmodel.Root(); err == nil {
		if _, err := os.Stat(filepath.Join(root, testmodel.SmolLM2)); err == nil {
			tok, err := smolLM2()
			if err != nil {
				return nil, err
			}
			toks["SmolLM2"] = tok
		}
	}
	return toks, nil
})

// withoutUnspellable returns text without the bytes that have no token in
// tok's vocabulary: Encode drops them, as llama.cpp does.
func withoutUnspellable(tok *Tokenizer, text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if tok.byteToken[text[i]] != None {
			b.WriteByte(text[i])
		}
	}
	return b.String()
}

// FuzzEncodeDecode checks that byte-level BPE loses nothing: decoding the
// tokens of any valid UTF-8 text gives the text back, with special tokens
// parsed or not (less any byte the vocabulary has no token for). On any input, Encode must not panic and must give ids in
// range. SentencePiece, with byte fallback, gives back any valid UTF-8 text
// without "▁" (which it decodes as a space). (Invalid UTF-8 can swallow the
// "▁" written for a space into a byte token, which then decodes as the
// bytes of "▁": llama.cpp does the same.)
func FuzzEncodeDecode(f *testing.F) {
	for _, s := range []string{
		"", "hello world", "Hello, world! 123 4567", "don't WE'LL 're", "  \n\t\r\n  x  ", "café 你好 👋🏽 مرحبا",
		"<|im_start|>user\nhi<|im_end|>", "<|im_sta", "<ud><ud>", "a\xffb\xc3", "\xf4\x90\x80\x80", "\xed\xa0\x80\xc0\x80",
		"٣٤٥ ²³ ½", "\u00a0\u3000\u2028\u0085", "func f() {\n\treturn 1\n}\n",
	} {
		f.Add(s)
	}
	toks, err := fuzzTokenizers()
	if err != nil {
		f.Fatal(err)
	}
	spm, err := New(spmSpec())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for name, tok := range toks {
			for _, parseSpecial := range []bool{false, true} {
				ids := encode(tok, text, false, parseSpecial)
				for _, id := range ids {
					if id < 0 || id >= tok.VocabSize() {
						t.Fatalf("Encode(%q) gave id %d, out of range", text, id)
					}
				}
				if !utf8.ValidString(text) {
					continue
				}
				if got, want := tok.Decode(ids), withoutUnspellable(tok, text); got != want {
					t.Fatalf("%s, parseSpecial %v: Decode(Encode(%q)) = %q", name, parseSpecial, text, got)
				}
			}
		}
		ids := encode(spm, text, true, false)
		if utf8.ValidString(text) && !strings.Contains(text, "▁") {
			if got := spm.Decode(ids[1:]); got != text {
				t.Fatalf("SentencePiece: Decode(Encode(%q)) = %q", text, got)
			}
		}
	})
}
