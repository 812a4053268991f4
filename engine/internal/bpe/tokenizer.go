package bpe

import "fmt"

// maxText is the longest text Encode takes: every byte of it spelled as a
// 6-byte byte token ("<0xE6>"), as llama2.c may, still has a position that
// fits the int32 of a piece (merge.go).
const maxText = (1<<31-1)/6 - 1

// Encode returns the token ids of text.
//
// bos and eos ask for BOS in front and EOS at the end. A GGUF vocabulary
// answers as llama.cpp does, where one request (add_special) asks for both:
// if either is asked for, each is added if the Spec says to (AddBOS,
// AddEOS). A llama2.c vocabulary adds what is asked for. With
// parseSpecial, control tokens written in the text, such as
// "<|im_start|>", are recognised as those tokens, as a chat template
// needs; without it they are tokenized as the plain text they are, as user
// input should be.
//
// Text that is not valid UTF-8 is not refused. Byte-level BPE reads each
// byte that does not start a valid sequence as U+FFFD (as llama.cpp does),
// so such text does not decode back to the same bytes. SentencePiece keeps
// every byte, with its byte tokens.
//
// The error is for a llama2.c vocabulary that lacks the byte token a text
// needs, and for a text too long to encode at once (maxText); a GGUF
// vocabulary spells anything else, if need be with its unknown token or by
// dropping a byte, as llama.cpp does.
func (t *Tokenizer) Encode(text string, bos, eos, parseSpecial bool) ([]int, error) {
	if len(text) > maxText {
		return nil, fmt.Errorf("a text of %d bytes is too long to tokenize at once (at most %d)", len(text), maxText)
	}
	addBOS, addEOS := t.askFor(bos, eos)
	var out []int
	if addBOS {
		out = append(out, t.bos)
	}
	afterSpecial := true // SentencePiece puts its space prefix at the start and after each special token
	for _, f := range t.partition(text, parseSpecial) {
		switch {
		case f.id != None:
			out = append(out, f.id)
			afterSpecial = true
		case t.spm:
			var err error
			if out, err = t.encodeSPM(f.text, afterSpecial, out); err != nil {
				return nil, err
			}
			afterSpecial = false
		default:
			out = t.encodeBPE(f.text, out)
		}
	}
	if addEOS {
		out = append(out, t.eos)
	}
	return out, nil
}

// Piece returns the bytes that token id stands for, or nil if id is out of
// range. The bytes may be part of a UTF-8 sequence only: byte-level tokens
// often split a character. Control, unknown and user-defined tokens give
// their text ("<|im_end|>"); unused tokens give nothing. The slice must not
// be modified.
func (t *Tokenizer) Piece(id int) []byte {
	if id < 0 || id >= len(t.pieces) {
		return nil
	}
	return t.pieces[id]
}

// Decode returns the text of a sequence of tokens: their pieces joined
// (ids out of range give nothing). For byte-level BPE this is exactly the
// text that Encode was given, if it was valid UTF-8 and the vocabulary has
// a token for each of its bytes. (Most do; SmolLM2's lacks six control
// characters, such as U+0016, which Encode drops, as llama.cpp does.) A
// SentencePiece model that adds a space prefix loses it
// again: one space at the start of the first token is dropped, as llama.cpp
// does.
func (t *Tokenizer) Decode(ids []int) string {
	var out []byte
	for i, id := range ids {
		p := t.Piece(id)
		if i == 0 && t.spacePrefix && len(p) > 0 && p[0] == ' ' {
			p = p[1:]
		}
		out = append(out, p...)
	}
	return string(out)
}
