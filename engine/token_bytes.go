package engine

import (
	"runtime"
	"sync"
	"weak"

	"github.com/tokenbytoken/course/engine/constrain"
	"github.com/tokenbytoken/course/engine/internal/bpe"
)

// TokenBytes returns the bytes token id adds to a text, anywhere but right
// after BOS (where a llama2.c tokenizer's token loses its leading space;
// see Decode). Tokens that stand for no text give nil: BOS, EOS, <unk>,
// and a GGUF model's control, unknown and unused tokens and its
// end-of-generation tokens. The result may be part of a UTF-8 character,
// and must not be modified.
func (t *Tokenizer) TokenBytes(id int) []byte {
	if id < 0 || id >= t.VocabSize() || t.IsEnd(id) || id == t.BOS() || id == t.EOS() {
		return nil
	}
	switch t.bpe.Type(id) {
	case bpe.Control, bpe.Unknown, bpe.Unused:
		return nil
	}
	return t.bpe.Piece(id)
}

// ChangesAfter reports whether the text a token adds after prev may
// differ from its TokenBytes: a llama2.c tokenizer drops the leading
// space of the token after BOS (see Decode).
func (t *Tokenizer) ChangesAfter(prev int) bool { return t.bpe.ChangesAfter(prev) }

// ConstraintVocabulary returns the tokenizer's vocabulary as a constraint
// sees it: each token's bytes (TokenBytes), and its end tokens (IsEnd).
// It is built on the first call for each tokenizer and shared by every
// later call and every Constraint made with that tokenizer: building it
// means sorting every token's text, which would otherwise dominate
// NewConstraint.
func (t *Tokenizer) ConstraintVocabulary() (*constrain.Vocabulary, error) {
	key := weak.Make(t)
	e, loaded := vocabularies.LoadOrStore(key, &vocabEntry{})
	entry := e.(*vocabEntry)
	if !loaded {
		// The entry goes when the tokenizer does, so that the cache
		// holds nothing of tokenizers no longer in use.
		runtime.AddCleanup(t, func(k weak.Pointer[Tokenizer]) { vocabularies.Delete(k) }, key)
	}
	entry.once.Do(func() { entry.v, entry.err = t.buildConstraintVocabulary() })
	return entry.v, entry.err
}

// vocabularies maps a weak pointer to a Tokenizer to its *vocabEntry.
var vocabularies sync.Map

// vocabEntry is one tokenizer's constraint vocabulary, built once.
type vocabEntry struct {
	once sync.Once
	v    *constrain.Vocabulary
	err  error
}

func (t *Tokenizer) buildConstraintVocabulary() (*constrain.Vocabulary, error) {
	n := t.VocabSize()
	texts := make([][]byte, n)
	var ends []int
	for id := range n {
		if t.IsEnd(id) {
			ends = append(ends, id)
			continue
		}
		texts[id] = t.TokenBytes(id)
	}
	return constrain.NewVocabulary(texts, ends)
}
