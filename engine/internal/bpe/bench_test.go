package bpe

import (
	"github.com/tokenbytoken/course/engine/internal/testmodel"

	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchText returns about 10 kB of mixed text: English prose, Go code,
// numbers, and a little of other scripts.
func benchText() string {
	parts := []string{
		"Once upon a time, in a quiet village by the sea, there lived an old fisherman who told stories to anyone who would listen. ",
		"He'd say the tide doesn't wait for anyone, and they'll learn it the hard way if they're late. ",
		"func (s *Server) Serve(ctx context.Context) error {\n\tfor i := 0; i < 10; i++ {\n\t\tif err := s.step(ctx); err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n\treturn nil\n}\n",
		"In 2024, the station logged 1,234,567 readings at 3.14159 Hz; 42% were above 98.6°F.\n\n",
		"Café, naïve, résumé — «guillemets», “quotes” and 你好，世界！ Привет, мир! 👋🌍\n",
	}
	var b strings.Builder
	for b.Len() < 10_000 {
		for _, p := range parts {
			b.WriteString(p)
		}
	}
	return b.String()
}

func BenchmarkEncodeSmolLM2(b *testing.B) {
	tok := smolLM2Tokenizer(b)
	text := benchText()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		encode(tok, text, false, true)
	}
}

func BenchmarkPreTokenizeSmolLM2(b *testing.B) {
	tok := smolLM2Tokenizer(b)
	text := benchText()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tok.pre.split(decodeText(text, nil))
	}
}

func BenchmarkDecodeSmolLM2(b *testing.B) {
	tok := smolLM2Tokenizer(b)
	text := benchText()
	ids := encode(tok, text, false, false)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tok.Decode(ids)
	}
}

func BenchmarkNewSmolLM2(b *testing.B) {
	spec, err := specFromGGUF(testmodel.Path(b, testmodel.SmolLM2))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := New(spec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeLlamaSPM needs Llama's SentencePiece vocabulary from
// llama.cpp's models/ folder (see TestOtherVocabulariesMatchLlamaCpp).
func BenchmarkEncodeLlamaSPM(b *testing.B) {
	dir := os.Getenv("BPE_LLAMACPP_VOCABS")
	if dir == "" {
		b.Skip("BPE_LLAMACPP_VOCABS is not set")
	}
	spec, err := specFromGGUF(filepath.Join(dir, "ggml-vocab-llama-spm.gguf"))
	if err != nil {
		b.Fatal(err)
	}
	tok, err := New(spec)
	if err != nil {
		b.Fatal(err)
	}
	text := benchText()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		encode(tok, text, true, true)
	}
}
