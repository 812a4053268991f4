package experiment

import (
	"fmt"
	"strings"
)

// Lexeme is one symbol of a JSON text, as a grammar of JSON reads it: a
// punctuation mark ({ } [ ] : ,), a string (quotes included), a number or
// a literal (true, false, null). Whitespace between symbols is none.
type Lexeme struct {
	Start, End int // byte offsets in the text
	Text       string
}

// JSONLexemes cuts text into the symbols of JSON, in order. It checks the
// symbols, not the grammar: `}{` is two lexemes. It returns an error with
// the offset of the first byte that starts no symbol, or of a string that
// does not close.
func JSONLexemes(text string) ([]Lexeme, error) {
	var out []Lexeme
	for i := 0; i < len(text); {
		c := text[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case strings.IndexByte("{}[]:,", c) >= 0:
			i++
		case c == '"':
			i++
			for i < len(text) && text[i] != '"' {
				if text[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(text) {
				return out, fmt.Errorf("offset %d: the string %q does not close", start, text[start:])
			}
			i++
		case c == '-' || c >= '0' && c <= '9':
			for i < len(text) && strings.IndexByte("+-.eE0123456789", text[i]) >= 0 {
				i++
			}
		case c >= 'a' && c <= 'z':
			for i < len(text) && text[i] >= 'a' && text[i] <= 'z' {
				i++
			}
			if w := text[start:i]; w != "true" && w != "false" && w != "null" {
				return out, fmt.Errorf("offset %d: %q is not a JSON literal", start, w)
			}
		default:
			return out, fmt.Errorf("offset %d: %q starts no JSON symbol", start, text[start:start+1])
		}
		out = append(out, Lexeme{Start: start, End: i, Text: text[start:i]})
	}
	return out, nil
}

// Crossing is a token whose text holds bytes of more than one JSON
// symbol: where the tokenizer's cuts and the grammar's do not line up.
type Crossing struct {
	Token   int      // the token's index among the pieces
	Piece   string   // its text
	Lexemes []string // the symbols it has bytes of, in order
}

// CrossingTokens joins pieces (the texts of consecutive tokens) into a
// JSON text and returns the tokens that hold bytes of two symbols or
// more, such as `":` (the end of a key and the colon) or `"},{"`. Spaces
// between symbols belong to none, so ` "` crosses nothing. It returns
// JSONLexemes's error when the joined text has a byte that starts no JSON
// symbol.
func CrossingTokens(pieces []string) ([]Crossing, error) {
	text := strings.Join(pieces, "")
	lex, err := JSONLexemes(text)
	if err != nil {
		return nil, err
	}
	var out []Crossing
	start, k := 0, 0 // k: the first lexeme that may overlap the piece
	for i, p := range pieces {
		end := start + len(p)
		for k < len(lex) && lex[k].End <= start {
			k++
		}
		var touched []string
		for j := k; j < len(lex) && lex[j].Start < end; j++ {
			touched = append(touched, lex[j].Text)
		}
		if len(touched) > 1 {
			out = append(out, Crossing{Token: i, Piece: p, Lexemes: touched})
		}
		start = end
	}
	return out, nil
}
