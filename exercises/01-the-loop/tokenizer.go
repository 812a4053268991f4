package loop

// Decode turns token ids back into text. Task 1.
//
// pieces is the vocabulary: pieces[id] is the text of token id. A piece
// stands for itself, except a byte-fallback piece "<0xHH>" (HH two
// hexadecimal digits, as in "<0xE2>"), which stands for the single byte
// 0xHH. That byte may be one part of a multi-byte UTF-8 character whose
// other bytes come in the next tokens, so Decode joins bytes, not
// characters. A piece that only looks similar ("<0xZZ>", "<0x4>") is an
// ordinary piece.
//
// Every other piece is copied as it is, special ones such as "<s>"
// included. An id outside the vocabulary (negative, or len(pieces) or
// more) adds nothing.
func Decode(pieces []string, ids []int) string {
	return ""
}

// Encode turns text into token ids by byte-pair encoding. Task 2.
//
// pieces[id] is the text of token id and scores[id] its merge score; the
// two slices have the same length. Encoding has two phases.
//
// Split: every UTF-8 character of text becomes one token, the id whose
// piece is exactly that character. A character that has no piece becomes
// one byte-fallback token per byte: the id of "<0xHH>" for each of its
// bytes. If a byte has no byte-fallback piece either, Encode returns an
// error naming the byte. In text that is not valid UTF-8, every byte that
// does not start a valid character counts as a character of its own (what
// utf8.DecodeRuneInString reports with a width of 1).
//
// Merge: two neighbouring tokens can merge when the concatenation of their
// pieces is itself a piece of the vocabulary. Of all the pairs that can
// merge, merge the one whose merged piece has the highest score (among
// equal scores, the leftmost pair): the two tokens become the one token of
// the merged piece. Then look again, and repeat until no pair can merge.
//
// When a piece occurs more than once in pieces, its lowest id is the one
// used. Empty text gives no tokens and no error.
//
// Encode adds nothing to the text. The course's tokenizer
// (engine.Tokenizer.Encode) first puts a space in front of non-empty text,
// the "dummy prefix" its vocabulary was trained with, so its Encode(s)
// gives the same ids as this Encode(" "+s).
func Encode(pieces []string, scores []float32, text string) ([]int, error) {
	return nil, nil
}
