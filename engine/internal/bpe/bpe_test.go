package bpe

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestByteMap(t *testing.T) {
	// GPT-2's map: printable bytes stand for themselves, the others are
	// numbered from U+0100 in byte order: 0x00..0x20 are the first 33
	// (space is U+0120 "Ġ", newline U+010A "Ċ"), 0x7F..0xA0 the next 34,
	// and 0xAD the last, U+0143.
	for b, want := range map[byte]rune{
		'a': 'a', '!': '!', '~': '~', 0xA1: 0xA1, 0xFF: 0xFF,
		0x00: 0x100, ' ': 0x120, '\n': 0x10A, 0x7F: 0x121, 0xA0: 0x142, 0xAD: 0x143,
	} {
		if got := byteChar[b]; got != want {
			t.Errorf("byteChar[%#x] = %U, want %U", b, got, want)
		}
	}
	seen := map[rune]bool{}
	for b := 0; b < 256; b++ {
		r := byteChar[b]
		if seen[r] {
			t.Errorf("%U stands for two bytes", r)
		}
		seen[r] = true
		if charByte[r] != byte(b) {
			t.Errorf("charByte[%U] = %#x, want %#x", r, charByte[r], b)
		}
	}
	raw := []byte("Hi \n\xff\x00é")
	if got := unByteLevel(byteLevel(raw)); string(got) != string(raw) {
		t.Errorf("unByteLevel(byteLevel(%q)) = %q", raw, got)
	}
	if got := byteLevel([]byte(" world")); got != "Ġworld" {
		t.Errorf("byteLevel(\" world\") = %q, want \"Ġworld\"", got)
	}
}

// helloMerges spell "hello" and " world" in a few steps.
var helloMerges = []string{"l l", "h e", "he ll", "hell o", "Ġ w", "o r", "Ġw or", "l d", "Ġwor ld"}

func TestBPEMergesByHand(t *testing.T) {
	tok := mustNew(t, byteLevelSpec("gpt-2", helloMerges, nil))
	for _, c := range []struct {
		text string
		want []string
	}{
		{"hello world", []string{"hello", "Ġworld"}},
		{"hello  world", []string{"hello", "Ġ", "Ġworld"}},
		{"hellow", []string{"hello", "w"}},
		{"helo", []string{"he", "l", "o"}},
		{"held", []string{"he", "ld"}},
		{"", []string{}},
		{"\n", []string{"Ċ"}},
	} {
		got := tokens(tok, encode(tok, c.text, true, false))
		if !slices.Equal(got, c.want) {
			t.Errorf("Encode(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestBPEMergeOrder(t *testing.T) {
	// The pair listed first is merged first, wherever it is in the word.
	tok := mustNew(t, byteLevelSpec("gpt-2", []string{"b c", "a b"}, nil))
	if got := tokens(tok, encode(tok, "abc", false, false)); !slices.Equal(got, []string{"a", "bc"}) {
		t.Errorf(`"abc" with "b c" before "a b" = %q, want ["a" "bc"]`, got)
	}
	tok = mustNew(t, byteLevelSpec("gpt-2", []string{"a b", "b c"}, nil))
	if got := tokens(tok, encode(tok, "abc", false, false)); !slices.Equal(got, []string{"ab", "c"}) {
		t.Errorf(`"abc" with "a b" before "b c" = %q, want ["ab" "c"]`, got)
	}
	// The same pair twice: the leftmost first.
	tok = mustNew(t, byteLevelSpec("gpt-2", []string{"a a"}, nil))
	if got := tokens(tok, encode(tok, "aaa", false, false)); !slices.Equal(got, []string{"aa", "a"}) {
		t.Errorf(`"aaa" = %q, want ["aa" "a"]`, got)
	}
	// A duplicate merge keeps its first rank.
	tok = mustNew(t, byteLevelSpec("gpt-2", []string{"b c", "a b", "b c"}, nil))
	if got := tokens(tok, encode(tok, "abc", false, false)); !slices.Equal(got, []string{"a", "bc"}) {
		t.Errorf(`"abc" with a duplicate "b c" = %q, want ["a" "bc"]`, got)
	}
}

func TestIgnoreMerges(t *testing.T) {
	// "xyz" is a token that no merge builds. Llama 3's pre-tokenizer takes a
	// word that is a token as it is; GPT-2's always merges.
	extra := map[string]TokenType{"xyz": Normal}
	llama3 := mustNew(t, byteLevelSpec("llama-bpe", nil, extra))
	gpt2 := mustNew(t, byteLevelSpec("gpt-2", nil, extra))
	if got := tokens(llama3, encode(llama3, "xyz", false, false)); !slices.Equal(got, []string{"xyz"}) {
		t.Errorf("llama-bpe: %q, want [\"xyz\"]", got)
	}
	if got := tokens(gpt2, encode(gpt2, "xyz", false, false)); !slices.Equal(got, []string{"x", "y", "z"}) {
		t.Errorf("gpt-2: %q, want [\"x\" \"y\" \"z\"]", got)
	}
}

func TestSpecialTokens(t *testing.T) {
	s := byteLevelSpec("gpt-2", nil, map[string]TokenType{
		"<|a|>": Control, "<ud>": UserDefined, "ab": Control, "bcd": Control, "<|end|>": Normal,
	})
	tok := mustNew(t, s)
	for _, c := range []struct {
		text         string
		parseSpecial bool
		want         []string
	}{
		{"x<|a|>y", true, []string{"x", "<|a|>", "y"}},
		{"x<|a|>y", false, []string{"x", "<", "|", "a", "|", ">", "y"}},
		{"<|a", true, []string{"<", "|", "a"}},
		{"<|a|><|a|>", true, []string{"<|a|>", "<|a|>"}},
		// User-defined tokens are always whole.
		{"1<ud>2", false, []string{"1", "<ud>", "2"}},
		// The longest special token is cut out first, even where a shorter
		// one starts earlier.
		{"abcd", true, []string{"a", "bcd"}},
		// "<|end|>" ends a turn: it becomes a control token.
		{"<|end|>", true, []string{"<|end|>"}},
		{"<|end|>", false, []string{"<", "|", "e", "n", "d", "|", ">"}},
	} {
		got := tokens(tok, encode(tok, c.text, false, c.parseSpecial))
		if !slices.Equal(got, c.want) {
			t.Errorf("Encode(%q, parseSpecial=%v) = %q, want %q", c.text, c.parseSpecial, got, c.want)
		}
	}
	end := tok.ids["<|end|>"]
	if !tok.IsControl(int(end)) || !tok.IsEndOfGeneration(int(end)) {
		t.Errorf("<|end|>: IsControl %v, IsEndOfGeneration %v; want both", tok.IsControl(int(end)), tok.IsEndOfGeneration(int(end)))
	}
}

func TestAddBOSAndEOS(t *testing.T) {
	s := byteLevelSpec("gpt-2", nil, map[string]TokenType{"<s>": Control, "</s>": Control})
	n := len(s.Tokens)
	s.BOS, s.EOS = n-1, n-2 // sorted: "</s>" then "<s>"
	s.AddBOS, s.AddEOS = true, true
	tok := mustNew(t, s)
	if got := tokens(tok, encode(tok, "a", true, false)); !slices.Equal(got, []string{"<s>", "a", "</s>"}) {
		t.Errorf("with addSpecial: %q", got)
	}
	if got := tokens(tok, encode(tok, "a", false, false)); !slices.Equal(got, []string{"a"}) {
		t.Errorf("without addSpecial: %q", got)
	}
	if tok.BOS() != n-1 || tok.EOS() != n-2 {
		t.Errorf("BOS %d EOS %d, want %d %d", tok.BOS(), tok.EOS(), n-1, n-2)
	}
}

func TestNewRefusesBadSpecs(t *testing.T) {
	good := func() Spec { return byteLevelSpec("gpt-2", helloMerges, map[string]TokenType{"<s>": Control}) }
	for _, c := range []struct {
		name   string
		change func(*Spec)
		want   string // in the error
	}{
		{"model", func(s *Spec) { s.Model = "bert" }, `"bert"`},
		{"pre", func(s *Spec) { s.Pre = "nonesuch" }, `"nonesuch"`},
		{"no tokens", func(s *Spec) { s.Tokens, s.Types, s.Merges = nil, nil, nil }, "no tokens"},
		{"types", func(s *Spec) { s.Types = s.Types[1:] }, "token types"},
		{"scores", func(s *Spec) { s.Scores = []float32{1} }, "1 token scores"},
		{"type value", func(s *Spec) { s.Types[260] = 9 }, "type 9"},
		{"duplicate", func(s *Spec) { s.Tokens[260] = "a" }, `"a" is already token 97`},
		{"merge part", func(s *Spec) { s.Merges = append(s.Merges, "he zz") }, `"zz" is not in the vocabulary`},
		{"merge result", func(s *Spec) { s.Merges = append(s.Merges, "a b") }, `"ab" is not in the vocabulary`},
		{"merge form", func(s *Spec) { s.Merges = append(s.Merges, "hello") }, `"hello" is not two tokens`},
		{"BOS range", func(s *Spec) { s.BOS = 100000 }, "BOS token id 100000"},
		{"negative EOS", func(s *Spec) { s.EOS = -2 }, "EOS token id -2"},
		{"add BOS", func(s *Spec) { s.AddBOS = true }, "no BOS"},
		{"byte token", func(s *Spec) { s.Types[260] = int32(Byte) }, "<0xNN>"},
	} {
		s := good()
		c.change(&s)
		_, err := New(s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %s", c.name, err, c.want)
		}
	}
	if _, err := New(good()); err != nil {
		t.Errorf("the unchanged spec: %v", err)
	}
}

// spmSpec is a small SentencePiece vocabulary with byte fallback, whose
// scores make the merges of "▁hello▁world" easy to follow by hand.
func spmSpec() Spec {
	s := Defaults("llama", "")
	add := func(text string, typ TokenType, score float32) {
		s.Tokens = append(s.Tokens, text)
		s.Types = append(s.Types, int32(typ))
		s.Scores = append(s.Scores, score)
	}
	add("<unk>", Unknown, 0)
	add("<s>", Control, 0)
	add("</s>", Control, 0)
	for b := 0; b < 256; b++ {
		add(fmt.Sprintf("<0x%02X>", b), Byte, 0)
	}
	for _, c := range "▁helowrd" {
		add(string(c), Normal, -2)
	}
	for text, score := range map[string]float32{
		"ll": -3, "ld": -3.2, "or": -3.5, "▁h": -4, "▁w": -4, "▁he": -5, "▁hell": -6, "▁wor": -6, "▁hello": -7,
	} {
		add(text, Normal, score)
	}
	return s
}

func TestSentencePieceByHand(t *testing.T) {
	tok := mustNew(t, spmSpec())
	// "hello world" becomes "▁hello▁world". The pairs that are tokens are
	// merged by score: ll (-3), ld (-3.2), or (-3.5), then ▁h and ▁w (-4,
	// tied: the left one first), ▁he (-5), ▁hell and ▁wor (-6), ▁hello (-7).
	// "▁world" is no token, so "▁wor" and "ld" stay apart.
	for _, c := range []struct {
		text         string
		addSpecial   bool
		parseSpecial bool
		want         []string
	}{
		{"hello world", false, false, []string{"▁hello", "▁wor", "ld"}},
		{"hello world", true, false, []string{"<s>", "▁hello", "▁wor", "ld"}},
		// No token for "z" or "é": their bytes.
		{"hez", false, false, []string{"▁he", "<0x7A>"}},
		{"é", false, false, []string{"▁", "<0xC3>", "<0xA9>"}},
		// A space prefix at the start and after each special token.
		{"hello<s>hello", false, true, []string{"▁hello", "<s>", "▁hello"}},
		{"hello<s>hello", false, false, []string{"▁hello", "<0x3C>", "<0x73>", "<0x3E>", "h", "e", "ll", "o"}},
		{"", true, false, []string{"<s>"}},
	} {
		got := tokens(tok, encode(tok, c.text, c.addSpecial, c.parseSpecial))
		if !slices.Equal(got, c.want) {
			t.Errorf("Encode(%q, %v, %v) = %q, want %q", c.text, c.addSpecial, c.parseSpecial, got, c.want)
		}
	}
	// Decoding drops the space prefix again.
	for _, text := range []string{"hello world", " hello", "é\xff", "", "  "} {
		if got := tok.Decode(encode(tok, text, false, false)); got != text {
			t.Errorf("Decode(Encode(%q)) = %q", text, got)
		}
	}
	if got := string(tok.Piece(int(tok.ids["▁hello"]))); got != " hello" {
		t.Errorf("Piece(▁hello) = %q", got)
	}
	if got := tok.Piece(int(tok.ids["<0x41>"])); string(got) != "A" {
		t.Errorf("Piece(<0x41>) = %q", got)
	}
}

func TestSentencePieceWithoutByteTokens(t *testing.T) {
	// Without byte tokens, a character the vocabulary lacks is the unknown
	// token.
	s := Defaults("llama", "")
	s.Tokens = []string{"<unk>", "<s>", "</s>", "▁", "a"}
	s.Types = []int32{int32(Unknown), int32(Control), int32(Control), int32(Normal), int32(Normal)}
	tok := mustNew(t, s)
	if got := tokens(tok, encode(tok, "aéa", false, false)); !slices.Equal(got, []string{"▁", "a", "<unk>", "a"}) {
		t.Errorf("Encode(\"aéa\") = %q", got)
	}
}

func TestPieceAndDecode(t *testing.T) {
	tok := mustNew(t, byteLevelSpec("gpt-2", helloMerges, map[string]TokenType{"<s>": Control, "<0x41>": Byte, "<x>": Unused}))
	for text, want := range map[string]string{"hello": "hello", "Ġworld": " world", "<s>": "<s>", "<0x41>": "A", "<x>": ""} {
		if got := string(tok.Piece(int(tok.ids[text]))); got != want {
			t.Errorf("Piece(%q) = %q, want %q", text, got, want)
		}
	}
	if tok.Piece(-1) != nil || tok.Piece(tok.VocabSize()) != nil {
		t.Error("Piece of an id out of range is not nil")
	}
	if got := tok.Decode([]int{int(tok.ids["hello"]), -5, int(tok.ids["Ġworld"])}); got != "hello world" {
		t.Errorf("Decode = %q", got)
	}
}

func TestInvalidUTF8(t *testing.T) {
	tok := mustNew(t, byteLevelSpec("gpt-2", nil, nil))
	// Values past U+10FFFF (on which llama.cpp stops): each byte is U+FFFD.
	for _, text := range []string{"\xf4\x90\x80\x80", "\xf7\xbf\xbf\xbf"} {
		want := encode(tok, strings.Repeat("\uFFFD", 4), false, false)
		if got := encode(tok, text, false, false); !slices.Equal(got, want) {
			t.Errorf("Encode(%q) = %v, want that of four U+FFFD, %v", text, got, want)
		}
	}
	// Other invalid bytes, as llama.cpp reads them: a byte that starts no
	// complete sequence is U+FFFD; an overlong form is its code point.
	for text, want := range map[string]string{
		"\xff":         "\uFFFD",
		"a\x80b":       "a\uFFFDb",
		"\xe2\x82 x":   "\uFFFD\uFFFD x",
		"\xc0\x80":     "\x00",
		"\xed\xa0\x80": "\xed\xa0\x80", // a surrogate is kept
	} {
		if got := tok.Decode(encode(tok, text, false, false)); got != want {
			t.Errorf("Decode(Encode(%q)) = %q, want %q", text, got, want)
		}
	}
	if !utf8.ValidString(tok.Decode(encode(tok, "ok\xffok", false, false))) {
		t.Error("invalid UTF-8 decodes to invalid UTF-8")
	}
}

func TestSmolLM2Specials(t *testing.T) {
	tok := smolLM2Tokenizer(t)
	if tok.VocabSize() != 49152 || tok.BOS() != 1 || tok.EOS() != 2 {
		t.Errorf("VocabSize %d BOS %d EOS %d, want 49152 1 2", tok.VocabSize(), tok.BOS(), tok.EOS())
	}
	// llama.cpp ends generation at <|endoftext|> (0) and <|im_end|> (2).
	for id, want := range map[int]bool{0: true, 1: false, 2: true, 3: false, 100: false} {
		if got := tok.IsEndOfGeneration(id); got != want {
			t.Errorf("IsEndOfGeneration(%d) = %v, want %v", id, got, want)
		}
	}
	if !tok.IsControl(1) || tok.IsControl(100) {
		t.Errorf("IsControl(1) = %v, IsControl(100) = %v", tok.IsControl(1), tok.IsControl(100))
	}
	if got := string(tok.Piece(1)); got != "<|im_start|>" {
		t.Errorf("Piece(1) = %q", got)
	}
}
