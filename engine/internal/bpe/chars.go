package bpe

import "unicode"

// The pre-tokenizer rules speak of letters (\p{L}), numbers (\p{N}) and
// whitespace (\s). Every code point is exactly one of these or "other".
type kind uint8

const (
	none   kind = iota // past the end of the text being split
	letter             // Unicode category L
	number             // Unicode category N
	space              // the Unicode White_Space property
	other              // anything else: punctuation, symbols, marks, controls, unassigned
)

// asciiKind holds the kind of each ASCII character, the common case.
var asciiKind [128]kind

func init() {
	for r := rune(0); r < 128; r++ {
		asciiKind[r] = kindOfSlow(r)
	}
}

func kindOf(r rune) kind {
	if 0 <= r && r < 128 {
		return asciiKind[r]
	}
	return kindOfSlow(r)
}

func kindOfSlow(r rune) kind {
	switch {
	case unicode.IsLetter(r) || cjkExtensionI(r):
		return letter
	case unicode.IsNumber(r):
		return number
	case unicode.IsSpace(r):
		return space
	}
	return other
}

// cjkExtensionI reports whether r is one of the ideographs Unicode 15.1
// added (U+2EBF0..U+2EE5D). llama.cpp's character tables include them as
// letters; Go's unicode package is at Unicode 15.0 and does not.
func cjkExtensionI(r rune) bool {
	return 0x2EBF0 <= r && r <= 0x2EE5D
}

// decodeText splits text into code points as llama.cpp does. A byte that
// does not start a complete sequence becomes U+FFFD, one for each such byte,
// and the decoding goes on with the next byte. Unlike Go's decoder, it takes
// overlong forms and surrogates for the code points they spell, as llama.cpp
// does; a sequence spelling a value past U+10FFFF counts as invalid.
func decodeText(text string, out []rune) []rune {
	for i := 0; i < len(text); {
		r, n := decodeRune(text[i:])
		out = append(out, r)
		i += n
	}
	return out
}

func decodeRune(s string) (rune, int) {
	const bad = '\uFFFD'
	b := s[0]
	cont := func(i int) bool { return i < len(s) && s[i]&0xC0 == 0x80 }
	switch {
	case b < 0x80:
		return rune(b), 1
	case b < 0xC0: // a continuation byte cannot start a sequence
		return bad, 1
	case b < 0xE0:
		if !cont(1) {
			return bad, 1
		}
		return rune(b&0x1F)<<6 | rune(s[1]&0x3F), 2
	case b < 0xF0:
		if !cont(1) || !cont(2) {
			return bad, 1
		}
		return rune(b&0x0F)<<12 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), 3
	case b < 0xF8:
		if !cont(1) || !cont(2) || !cont(3) {
			return bad, 1
		}
		r := rune(b&0x07)<<18 | rune(s[1]&0x3F)<<12 | rune(s[2]&0x3F)<<6 | rune(s[3]&0x3F)
		if r > unicode.MaxRune {
			return bad, 1
		}
		return r, 4
	}
	return bad, 1
}

// appendRune writes r in UTF-8. Unlike utf8.AppendRune, it writes
// surrogates as they are (three bytes) rather than as U+FFFD, so that text
// decoded by decodeText is written back unchanged.
func appendRune(out []byte, r rune) []byte {
	switch {
	case r < 0x80:
		return append(out, byte(r))
	case r < 0x800:
		return append(out, 0xC0|byte(r>>6), 0x80|byte(r)&0x3F)
	case r < 0x10000:
		return append(out, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
	}
	return append(out, 0xF0|byte(r>>18), 0x80|byte(r>>12)&0x3F, 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
}

// isPunct reports whether r is punctuation (Unicode category P).
func isPunct(r rune) bool {
	return unicode.IsPunct(r)
}
