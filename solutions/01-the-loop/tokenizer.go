package loop

import (
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// byteValue reports whether piece is a byte-fallback piece "<0xHH>" and,
// if it is, the byte it stands for.
func byteValue(piece string) (byte, bool) {
	if len(piece) != 6 || piece[:3] != "<0x" || piece[5] != '>' {
		return 0, false
	}
	v, err := strconv.ParseUint(piece[3:5], 16, 8)
	if err != nil {
		return 0, false
	}
	return byte(v), true
}

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
	var text []byte
	for _, id := range ids {
		if id < 0 || id >= len(pieces) {
			continue
		}
		if b, ok := byteValue(pieces[id]); ok {
			text = append(text, b)
		} else {
			text = append(text, pieces[id]...)
		}
	}
	return string(text)
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
	if len(pieces) != len(scores) {
		return nil, fmt.Errorf("%d pieces but %d scores", len(pieces), len(scores))
	}
	// Index the vocabulary. Walking it backwards leaves the lowest id of a
	// repeated piece in the map.
	ids := make(map[string]int, len(pieces))
	var byteIDs [256]int
	for b := range byteIDs {
		byteIDs[b] = -1
	}
	for id := len(pieces) - 1; id >= 0; id-- {
		ids[pieces[id]] = id
		if b, ok := byteValue(pieces[id]); ok {
			byteIDs[b] = id
		}
	}

	// Split into characters, or into bytes where a character has no piece.
	var tokens []int
	for i := 0; i < len(text); {
		_, size := utf8.DecodeRuneInString(text[i:])
		if id, ok := ids[text[i:i+size]]; ok {
			tokens = append(tokens, id)
		} else {
			for k := i; k < i+size; k++ {
				id := byteIDs[text[k]]
				if id < 0 {
					return nil, fmt.Errorf("byte 0x%02X at offset %d has no piece and no byte-fallback piece <0x%02X>", text[k], k, text[k])
				}
				tokens = append(tokens, id)
			}
		}
		i += size
	}

	// Merge the best pair until none is left. Every round rescans all the
	// pairs: simple, and fast enough for a few thousand characters.
	for {
		best, bestID := -1, 0
		var bestScore float32
		for i := 0; i+1 < len(tokens); i++ {
			id, ok := ids[pieces[tokens[i]]+pieces[tokens[i+1]]]
			// A strictly higher score is needed to replace an earlier
			// pair: ties go to the leftmost.
			if ok && (best < 0 || scores[id] > bestScore) {
				best, bestID, bestScore = i, id, scores[id]
			}
		}
		if best < 0 {
			return tokens, nil
		}
		tokens[best] = bestID
		tokens = slices.Delete(tokens, best+1, best+2)
	}
}
