package bpe

import "unicode/utf8"

// Byte-level BPE works on bytes, but its vocabulary is stored as text, and
// some bytes (controls, space, bytes that are not valid UTF-8 on their own)
// would be awkward or impossible to write. GPT-2 therefore gives every byte a
// printable character: the printable ASCII and Latin-1 bytes stand for
// themselves, and the 68 others are given the characters from U+0100 on, in
// byte order. A space (0x20) becomes "Ġ" (U+0120) and a newline "Ċ" (U+010A),
// which is why vocabularies are full of them.

// byteChar maps a byte to the character that stands for it in the
// vocabulary.
var byteChar [256]rune

// charByte maps those characters back to their bytes.
var charByte = make(map[rune]byte, 256)

func init() {
	next := rune(256)
	for b := 0; b < 256; b++ {
		if printable(byte(b)) {
			byteChar[b] = rune(b)
		} else {
			byteChar[b] = next
			next++
		}
		charByte[byteChar[b]] = byte(b)
	}
}

// printable reports whether a byte stands for itself: '!'..'~', '¡'..'¬'
// and '®'..'ÿ' (all of Latin-1 that is visible, without the soft hyphen).
func printable(b byte) bool {
	return '!' <= b && b <= '~' || 0xA1 <= b && b <= 0xAC || 0xAE <= b
}

// byteLevel returns the vocabulary spelling of raw bytes: each byte
// replaced by its character.
func byteLevel(raw []byte) string {
	out := make([]byte, 0, 2*len(raw))
	for _, b := range raw {
		out = utf8.AppendRune(out, byteChar[b])
	}
	return string(out)
}

// unByteLevel returns the raw bytes that a vocabulary spelling stands for.
// A character outside the byte map (none in a well-formed vocabulary) is
// kept as its own UTF-8 bytes.
func unByteLevel(s string) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if b, ok := charByte[r]; ok {
			out = append(out, b)
		} else {
			out = utf8.AppendRune(out, r)
		}
	}
	return out
}
