package decoding

import (
	"unicode/utf8"
)

// UTF8Stream releases streamed bytes only in whole UTF-8 characters.
// Byte-fallback tokens carry single bytes, so one character such as "é"
// (0xC3 0xA9) or an emoji can arrive split over several tokens; printing
// the first byte alone would show garbage. The stream holds an incomplete
// character until its last byte arrives. Bytes that can never be part of a
// valid character are released as U+FFFD, the replacement character, so
// the output is always valid UTF-8.
type UTF8Stream struct {
	held []byte
}

// Push adds bytes and returns every complete character now available.
func (u *UTF8Stream) Push(piece string) string {
	if len(u.held) == 0 && utf8.ValidString(piece) {
		// Nearly every token: whole characters and nothing held, released
		// as they are, without a copy.
		return piece
	}
	u.held = append(u.held, piece...)
	var out []byte
	i := 0
	for i < len(u.held) {
		r, size := utf8.DecodeRune(u.held[i:])
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(u.held[i:]) {
				break // the start of a character whose other bytes are still to come
			}
			out = utf8.AppendRune(out, utf8.RuneError)
			i++
			continue
		}
		out = append(out, u.held[i:i+size]...)
		i += size
	}
	u.held = append(u.held[:0], u.held[i:]...)
	return string(out)
}

// Flush returns what is still held at the end of generation: an incomplete
// character, which can no longer be completed, becomes one U+FFFD.
func (u *UTF8Stream) Flush() string {
	if len(u.held) == 0 {
		return ""
	}
	u.held = u.held[:0]
	return string(utf8.RuneError)
}
