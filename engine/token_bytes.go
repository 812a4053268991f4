package engine

import "github.com/tokenbytoken/course/engine/internal/bpe"

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
