package engine

import "testing"

// BenchmarkConstraintVocabulary is the first ConstraintVocabulary of a
// tokenizer: every token's text, sorted (SmolLM2's 49,152 tokens).
func BenchmarkConstraintVocabulary(b *testing.B) {
	_, tok, err := smolLM2()
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		if _, err := tok.buildConstraintVocabulary(); err != nil {
			b.Fatal(err)
		}
	}
}
