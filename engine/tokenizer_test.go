package engine

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEncodeMergesByScore(t *testing.T) {
	// "ab" outranks "bc", so "abc" becomes [ab, c] and not [a, bc].
	tok := byteTokenizer(" ", "a", "b", "c", "ab", "bc", " ab")
	ids, err := tok.Encode("abc", true, true)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, id := range ids {
		got = append(got, tok.Piece(id))
	}
	want := []string{"<s>", " ab", "c", "</s>"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("Encode(%q) = %q, want %q", "abc", got, want)
	}
}

func TestEncodeByteFallback(t *testing.T) {
	tok := byteTokenizer(" ", "h", "i")
	ids, err := tok.Encode("hi é", false, false)
	if err != nil {
		t.Fatal(err)
	}
	// " h i" become their own tokens; "é" is not in the vocabulary, so it
	// falls back to its two UTF-8 bytes.
	var pieces []string
	for _, id := range ids {
		pieces = append(pieces, tok.Piece(id))
	}
	want := []string{" ", "h", "i", " ", "<0xC3>", "<0xA9>"}
	if strings.Join(pieces, "|") != strings.Join(want, "|") {
		t.Fatalf("pieces = %q, want %q", pieces, want)
	}
	if got := tok.DecodeAll(ids); got != " hi é" {
		t.Fatalf("DecodeAll = %q", got)
	}
}

func TestDecodeDropsSpaceAfterBOS(t *testing.T) {
	tok := byteTokenizer(" ", "x", " x")
	id, _ := tok.Lookup(" x")
	if got := tok.Decode(tok.BOS(), id); got != "x" {
		t.Fatalf("after BOS: %q, want %q", got, "x")
	}
	if got := tok.Decode(5, id); got != " x" {
		t.Fatalf("mid-text: %q, want %q", got, " x")
	}
}

func TestReferenceTokenizerRoundTrip(t *testing.T) {
	m, tok := loadReference(t)
	if tok.VocabSize() != m.Config.VocabSize || tok.BOS() != 1 || tok.EOS() != 2 {
		t.Fatalf("vocab %d, BOS %d, EOS %d", tok.VocabSize(), tok.BOS(), tok.EOS())
	}
	for _, s := range []string{"Once upon a time", "Lily's mom said, \"Hi!\"", "日本語 ünïcödé 🙂", "\x00\xff broken \xc3"} {
		ids, err := tok.Encode(s, true, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.DecodeAll(ids); got != s {
			t.Fatalf("round trip of %q gave %q", s, got)
		}
	}
	ids, _ := tok.Encode("Once upon a time", true, false)
	if len(ids) > 6 {
		t.Fatalf("%q took %d tokens; merges are not being applied", "Once upon a time", len(ids))
	}
}

func encodeTokenizer(t testing.TB, tok *Tokenizer) []byte {
	var buf bytes.Buffer
	if _, err := tok.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestTokenizerFileErrors(t *testing.T) {
	tok := byteTokenizer(" ", "a", "b", "ab")
	data := encodeTokenizer(t, tok)
	n := tok.VocabSize()
	back, err := ParseTokenizer(data, n)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encodeTokenizer(t, back), data) {
		t.Fatal("tokenizer changed in a write/read round trip")
	}
	if _, err := ParseTokenizer(data, 0); err != nil {
		t.Fatalf("reading every token: %v", err)
	}
	cases := []struct {
		name  string
		data  []byte
		vocab int
		want  string
	}{
		{"model expects more tokens", data, n + 1, "file holds 263 tokens but the model's vocabulary has 264"},
		{"model expects fewer tokens", data, n - 1, "do not match"},
		{"truncated", data[:len(data)-1], n, "token 262"},
		{"empty", nil, n, "max_token_length"},
		{"absurd max length", header(-5), n, "max_token_length = -5"},
		{"absurd vocab", data, -1, "vocabulary size -1"},
		{"token longer than max", append(header(1), header(0, 7)...), 1, "length 7"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTokenizer(tc.data, tc.vocab)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func FuzzReadTokenizer(f *testing.F) {
	f.Add(encodeTokenizer(f, byteTokenizer(" ", "a", "b", "ab")), 0)
	f.Add(encodeTokenizer(f, byteTokenizer()), 259)
	f.Add(header(4, 0, 1), 1)
	f.Fuzz(func(t *testing.T, data []byte, vocab int) {
		tok, err := ParseTokenizer(data, vocab%600)
		if err != nil {
			return
		}
		// A tokenizer that parses writes back to a file that parses to the
		// same vocabulary.
		back, err := ParseTokenizer(encodeTokenizer(t, tok), tok.VocabSize())
		if err != nil {
			t.Fatalf("re-encoded tokenizer does not parse: %v", err)
		}
		for id := range tok.VocabSize() {
			if back.Piece(id) != tok.Piece(id) || back.Score(id) != tok.Score(id) {
				t.Fatalf("token %d changed in the round trip", id)
			}
		}
	})
}

func FuzzEncodeDecode(f *testing.F) {
	tok := byteTokenizer(" ", "a", "b", "ab", " a", "é", "th", "the", " the")
	for _, s := range []string{"", "the cat", "ab ab", "é\xff", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := tok.Encode(s, true, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.DecodeAll(ids); got != s {
			t.Fatalf("round trip of %q gave %q", s, got)
		}
		if utf8.ValidString(s) && len(ids) > 1+len(s)+1 {
			t.Fatalf("%q took %d tokens", s, len(ids))
		}
	})
}

func TestSameVocabulary(t *testing.T) {
	a := byteTokenizer(" ", "a", "b")
	if _, same := a.SameVocabulary(byteTokenizer(" ", "a", "b")); !same {
		t.Fatal("identical vocabularies reported different")
	}
	if id, same := a.SameVocabulary(byteTokenizer(" ", "a", "c")); same || id != 261 {
		t.Fatalf("got (%d, %v), want the first difference at 261", id, same)
	}
	// Same pieces, but " " has another merge score (2 instead of 3).
	if id, same := a.SameVocabulary(byteTokenizer(" ", "a")); same || id != 259 {
		t.Fatalf("other scores: got (%d, %v), want (259, false)", id, same)
	}
	short, _ := NewTokenizer([]string{"<unk>", "<s>", "</s>"}, []float32{0, 0, 0}, 0)
	if id, same := a.SameVocabulary(short); same || id != 3 {
		t.Fatalf("shorter vocabulary: got (%d, %v), want (3, false)", id, same)
	}
}

// mergeByRescan is the textbook BPE loop: rescan every pair, merge the best
// (leftmost on ties), repeat. Encode must make exactly the same merges.
func mergeByRescan(t *Tokenizer, tokens []int) []int {
	for {
		best, bestID, bestScore := -1, -1, float32(math.Inf(-1))
		for i := 0; i+1 < len(tokens); i++ {
			if id, ok := t.Lookup(t.Piece(tokens[i]) + t.Piece(tokens[i+1])); ok && t.Score(id) > bestScore {
				best, bestID, bestScore = i, id, t.Score(id)
			}
		}
		if best < 0 {
			return tokens
		}
		tokens[best] = bestID
		tokens = append(tokens[:best+1], tokens[best+2:]...)
	}
}

// splitChars is the first half of Encode, for vocabularies with all 256
// byte tokens: the dummy-prefix space, then one token per UTF-8 character
// (a lead byte and the continuation bytes after it, four bytes at most),
// or one byte token per byte of a character the vocabulary lacks.
func splitChars(t testing.TB, tok *Tokenizer, text string) []int {
	if text == "" {
		return nil
	}
	text = " " + text
	var ids []int
	for i := 0; i < len(text); {
		j := i + 1
		if text[i] >= 0xC0 {
			for j < len(text) && text[j]&0xC0 == 0x80 && j-i < 4 {
				j++
			}
		}
		if id, ok := tok.Lookup(text[i:j]); ok {
			ids = append(ids, id)
		} else {
			for k := i; k < j; k++ {
				id, ok := tok.Lookup(byteName(text[k]))
				if !ok {
					t.Fatalf("no byte token for 0x%02X", text[k])
				}
				ids = append(ids, id)
			}
		}
		i = j
	}
	return ids
}

// A vocabulary with many equal scores and overlapping merges, where the
// order of merges matters.
var tieTokenizer = func() *Tokenizer {
	pieces := []string{"<unk>", "<s>", "</s>"}
	scores := []float32{0, 0, 0}
	for b := range 256 {
		pieces = append(pieces, byteName(byte(b)))
		scores = append(scores, 0)
	}
	for i, p := range []string{" ", "a", "b", "c", "aa", "ab", "ba", "bc", "aaa", "abc", "bca", "aab", " a", " ab", "cab", "abab"} {
		pieces = append(pieces, p)
		scores = append(scores, float32(i%3))
	}
	t, err := NewTokenizer(pieces, scores, 0)
	if err != nil {
		panic(err)
	}
	return t
}()

func FuzzMergeMatchesRescan(f *testing.F) {
	for _, s := range []string{"aaaa", "abcabcab", "ababab aab", "bcaabca", "cabab"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := tieTokenizer.Encode(s, false, false)
		if err != nil {
			t.Fatal(err)
		}
		want := mergeByRescan(tieTokenizer, splitChars(t, tieTokenizer, s))
		if !slices.Equal(ids, want) {
			t.Fatalf("Encode(%q) = %v, the rescanning merge gives %v", s, ids, want)
		}
	})
}

func TestReferenceEncodeMatchesRescan(t *testing.T) {
	_, tok := loadReference(t)
	text := strings.Repeat("Once upon a time, there was a little girl named Lily. She loved to play outside. ", 20)
	ids, err := tok.Encode(text, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := mergeByRescan(tok, splitChars(t, tok, text)); !slices.Equal(ids, want) {
		t.Fatalf("heap merge and rescanning merge disagree:\n%v\n%v", ids, want)
	}
}
