package loop

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/exercises/internal/check"
)

// courseVocabulary returns the course's tokenizer and its vocabulary as the
// plain slices Decode and Encode take.
func courseVocabulary(t *testing.T) (*engine.Tokenizer, []string, []float32) {
	t.Helper()
	_, tok, err := models.Default()
	if err != nil {
		t.Fatalf("loading the course's model: %v", err)
	}
	pieces := make([]string, tok.VocabSize())
	scores := make([]float32, tok.VocabSize())
	for id := range pieces {
		pieces[id], scores[id] = tok.Piece(id), tok.Score(id)
	}
	return tok, pieces, scores
}

// show writes token ids with their pieces, for failure messages:
// [0:"a" 8:"bcd"], cut short when long (check.List).
func show(pieces []string, ids []int) string {
	return check.List(ids, func(id int) string { return piece(pieces, id) })
}

// piece writes one token id with its piece: 8:"bcd", or 99:? outside the
// vocabulary.
func piece(pieces []string, id int) string {
	if id < 0 || id >= len(pieces) {
		return fmt.Sprintf("%d:?", id)
	}
	return fmt.Sprintf("%d:%q", id, pieces[id])
}

// where says where two token sequences part: at which token, with what on
// each side.
func where(pieces []string, got, want []int) string {
	i := firstDifference(got, want)
	switch {
	case i < 0:
		return "the same tokens"
	case i == len(got):
		return fmt.Sprintf("yours stops after %d tokens, before %s", i, piece(pieces, want[i]))
	case i == len(want):
		return fmt.Sprintf("yours goes on after %d tokens with %s", i, piece(pieces, got[i]))
	}
	return fmt.Sprintf("they part at token %d: %s, want %s", i, piece(pieces, got[i]), piece(pieces, want[i]))
}

// handVocabulary is a small vocabulary laid out like the course's: the
// three special pieces, the 256 byte-fallback pieces, a few characters, and
// merges whose scores make their order matter (ties included).
func handVocabulary() ([]string, []float32) {
	var pieces []string
	var scores []float32
	add := func(p string, s float32) {
		pieces = append(pieces, p)
		scores = append(scores, s)
	}
	add("<unk>", 0)
	add("<s>", 0)
	add("</s>", 0)
	for b := range 256 {
		add(fmt.Sprintf("<0x%02X>", b), 0)
	}
	for _, c := range []string{" ", "a", "b", "c", "d", "é"} {
		add(c, 0)
	}
	for _, m := range []struct {
		piece string
		score float32
	}{
		{" a", 3}, {"ab", 4}, {"bc", 4}, {"cd", 2}, {"abc", 5}, {"bcd", 5},
		{"aa", 1}, {"aaa", 1}, {" ab", 6}, {"éa", 3}, {"dd", -1}, {"d ", 0.5},
		{" abc", 2}, {"cdd", -2}, {"é ", 4}, {" é", 4},
	} {
		add(m.piece, m.score)
	}
	return pieces, scores
}

// randomTexts returns n short texts over an alphabet of characters the hand
// vocabulary has ("a", "é", " "…) and characters it lacks ("ü", "世",
// "\n"), which must go through byte fallback. The seed is fixed, so the
// texts are the same on every run.
func randomTexts(n int) []string {
	alphabet := []string{"a", "b", "c", "d", " ", "é", "ü", "世", "\n", "a", "b", "c"}
	r := rand.New(rand.NewPCG(1, 2))
	texts := make([]string, n)
	for i := range texts {
		var sb strings.Builder
		for range 1 + r.IntN(14) {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		texts[i] = sb.String()
	}
	return texts
}

// TestTask1_PiecesAndBytes: Decode joins pieces, turns "<0xHH>" pieces into
// single bytes (which may together make one UTF-8 character), keeps
// look-alikes and special pieces as they are, and skips unknown ids.
//
//grade:task 1 points 2
func TestTask1_PiecesAndBytes(t *testing.T) {
	defer check.Recover(t)
	pieces := []string{
		"<unk>", "<s>", "</s>", "he", "llo", " ", "wor", "ld", // 0–7
		"<0x41>", "<0xC3>", "<0xA9>", "<0xE2>", "<0x82>", "<0xAC>", // 8–13
		"<0xZZ>", "<0x4>", "<0x0A>", "é", // 14–17
	}
	for _, c := range []struct {
		ids  []int
		want string
		why  string
	}{
		{[]int{3, 4, 5, 6, 7}, "hello world", "ordinary pieces are joined"},
		{[]int{8}, "A", `"<0x41>" is the byte 0x41, "A"`},
		{[]int{3, 9, 10}, "heé", "the bytes C3 A9 are the two bytes of é"},
		{[]int{11, 12, 13, 5, 17}, "€ é", "the bytes E2 82 AC are the three bytes of €"},
		{[]int{16}, "\n", `"<0x0A>" is a line break`},
		{[]int{14, 15}, "<0xZZ><0x4>", "look-alikes that are not <0xHH> are ordinary pieces"},
		{[]int{1, 3, 2}, "<s>he</s>", "special pieces are copied as they are"},
		{[]int{3, -1, 18, 99, 4}, "hello", "ids outside the vocabulary add nothing"},
		{nil, "", "no tokens, no text"},
	} {
		if got := Decode(pieces, c.ids); got != c.want {
			t.Errorf("Decode(pieces, %v) = %q; want %q (%s)", c.ids, got, c.want, c.why)
		}
	}
}

// TestTask1_MatchesEngine: on the course's vocabulary, Decode gives the
// engine's text for every single token and for whole encoded snippets.
//
//grade:task 1 points 1
func TestTask1_MatchesEngine(t *testing.T) {
	defer check.Recover(t)
	tok, pieces, _ := courseVocabulary(t)
	wrong := 0
	for id := range pieces {
		if got, want := Decode(pieces, []int{id}), tok.Decode(-1, id); got != want {
			if wrong++; wrong <= 3 {
				t.Errorf("Decode(pieces, [%d]) = %q; want %q (the piece is %q)", id, got, want, pieces[id])
			}
		}
	}
	if wrong > 3 {
		t.Errorf("… and %d more single tokens decode wrongly", wrong-3)
	}
	for _, s := range []string{"func main() {\n\tfmt.Println(\"héllo, 世界 😀\")\n}\n", "x := []byte{0x00} // \x00\x7f"} {
		ids, err := tok.Encode(s, false, false)
		if err != nil {
			t.Fatalf("engine's Encode(%q): %v", s, err)
		}
		if got, want := Decode(pieces, ids), tok.DecodeAll(ids); got != want {
			t.Errorf("Decode(pieces, %s) = %q; want %q", check.Vec(ids), got, want)
		}
	}
}

// TestTask2_SplitsIntoCharacters: with no merges in the vocabulary, Encode
// gives one token per character, byte-fallback tokens for characters
// without a piece, the lowest id of a repeated piece, and an error when a
// byte cannot be encoded at all.
//
//grade:task 2 points 1
func TestTask2_SplitsIntoCharacters(t *testing.T) {
	defer check.Recover(t)
	pieces := []string{"a", "b", "é", "<0xE2>", "<0x82>", "<0xAC>", "<0xC3>", "<0xFF>", "a"}
	scores := make([]float32, len(pieces))
	for _, c := range []struct {
		text string
		want []int
		why  string
	}{
		{"ab", []int{0, 1}, "one token per character"},
		{"aé€b", []int{0, 2, 3, 4, 5, 1}, "é has a piece; € has none, so it becomes its bytes E2 82 AC"},
		{"\xff", []int{7}, "the invalid byte FF stands alone and falls back to <0xFF>"},
		{"ba", []int{1, 0}, `"a" is both id 0 and id 8: the lowest id is used`},
	} {
		got, err := Encode(pieces, scores, c.text)
		if err != nil {
			t.Errorf("Encode(pieces, scores, %q) returned the error %v; want %s (%s)", c.text, err, show(pieces, c.want), c.why)
		} else if !slices.Equal(got, c.want) {
			t.Errorf("Encode(pieces, scores, %q) = %s; want %s (%s)", c.text, show(pieces, got), show(pieces, c.want), c.why)
		}
	}
	if got, err := Encode(pieces, scores, ""); err != nil || len(got) != 0 {
		t.Errorf("Encode(pieces, scores, \"\") = %s, %v; want no tokens and no error", check.Vec(got), err)
	}
	for _, text := range []string{"x", "aü"} {
		if got, err := Encode(pieces, scores, text); err == nil {
			t.Errorf("Encode(pieces, scores, %q) = %s with no error; want an error: a byte of %q has neither a piece nor a byte-fallback piece", text, show(pieces, got), text)
		}
	}
}

// TestTask2_MergesInPriorityOrder: the pair with the highest-scoring merge
// goes first, whatever its position, and every merge can make a new pair
// possible. A greedy left-to-right tokenizer gives other answers here.
//
//grade:task 2 points 2
func TestTask2_MergesInPriorityOrder(t *testing.T) {
	defer check.Recover(t)
	pieces := []string{"a", "b", "c", "d", "ab", "bc", "cd", "abc", "bcd"}
	scores := []float32{0, 0, 0, 0, 1, 5, 4, 2, 3}
	for _, c := range []struct {
		text string
		want []int
		why  string
	}{
		{"abcd", []int{0, 8}, `bc (5) merges first; then bcd (3) beats abc (2). Longest match from the left would give [abc d], merging pairs from the left [ab cd]`},
		{"dabcd", []int{3, 0, 8}, "bc (5), then bcd (3)"},
		{"abcab", []int{7, 4}, "bc (5), then abc (2) beats the ab (1) at the end, which merges last"},
		{"cd", []int{6}, "a single merge"},
		{"c", []int{2}, "one character, nothing to merge"},
	} {
		got, err := Encode(pieces, scores, c.text)
		if err != nil {
			t.Errorf("Encode(pieces, scores, %q) returned the error %v; want %s", c.text, err, show(pieces, c.want))
		} else if !slices.Equal(got, c.want) {
			t.Errorf("Encode(pieces, scores, %q) = %s; want %s (%s)", c.text, show(pieces, got), show(pieces, c.want), c.why)
		}
	}
	// A low-scoring merge can open the way to the best one.
	pieces = []string{"a", "b", "c", "ab", "bc", "abc"}
	scores = []float32{0, 0, 0, 1, 0.5, 10}
	want := []int{5}
	if got, err := Encode(pieces, scores, "abc"); err != nil || !slices.Equal(got, want) {
		t.Errorf("Encode(pieces, scores, \"abc\") = %s, %v; want %s: ab (1) beats bc (0.5), and then ab+c makes abc (10)", show(pieces, got), err, show(pieces, want))
	}
}

// TestTask2_TiesGoLeftmost: among merges of equal score, the leftmost pair
// merges first.
//
//grade:task 2 points 1
func TestTask2_TiesGoLeftmost(t *testing.T) {
	defer check.Recover(t)
	pieces := []string{"a", "b", "c", "aa", "ab", "bc"}
	scores := []float32{0, 0, 0, 1, 2, 2}
	for _, c := range []struct {
		text string
		want []int
	}{
		{"aaa", []int{3, 0}},
		{"aaaaa", []int{3, 3, 0}},
		{"abc", []int{4, 2}},
		{"aabc", []int{0, 4, 2}},
	} {
		got, err := Encode(pieces, scores, c.text)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("Encode(pieces, scores, %q) = %s, %v; want %s (equal scores: the leftmost pair merges first)", c.text, show(pieces, got), err, show(pieces, c.want))
		}
	}
}

// TestTask2_RoundTrip: decoding what Encode made gives the text back, for
// characters with and without pieces and for invalid UTF-8. (The ids are
// decoded by the engine, so this test does not depend on task 1.)
//
//grade:task 2 points 2
func TestTask2_RoundTrip(t *testing.T) {
	defer check.Recover(t)
	hand, handScores := handVocabulary()
	handTok, err := engine.NewTokenizer(hand, handScores, 0)
	if err != nil {
		t.Fatalf("engine.NewTokenizer: %v", err)
	}
	courseTok, course, courseScores := courseVocabulary(t)
	type vocab struct {
		name   string
		pieces []string
		scores []float32
		tok    *engine.Tokenizer
	}
	texts := append(randomTexts(200), "ab€cd 世界 aaa")
	cases := []struct {
		v     vocab
		texts []string
	}{
		{vocab{"the hand-built vocabulary", hand, handScores, handTok}, texts},
		{vocab{"the course's vocabulary", course, courseScores, courseTok}, []string{
			"func main() {\n\tfmt.Println(\"héllo, 世界 😀\")\n}\n",
			"// Ångström, naïve café — “quoted” …",
			"x := []byte{0x00, 0x7f} // \x00\x7f\t",
			"\xff\xfe is not UTF-8, nor is \xe2\x82",
		}},
	}
	wrong := 0
	for _, c := range cases {
		for _, text := range c.texts {
			ids, err := Encode(c.v.pieces, c.v.scores, text)
			if err != nil {
				t.Errorf("Encode(%s, %q) returned the error %v; want tokens that decode to the text", c.v.name, text, err)
				wrong++
			} else if back := c.v.tok.DecodeAll(ids); back != text {
				t.Errorf("Encode(%s, %q) = %s, which decodes to %q; want the text back", c.v.name, text, check.Vec(ids), back)
				wrong++
			}
			if wrong >= 3 {
				t.Fatalf("stopping after %d texts that do not round-trip", wrong)
			}
		}
	}
}

// TestTask2_MatchesEngine: Encode(" "+s) gives the same ids as the engine's
// Encode(s, false, false), which adds that leading space itself — on 200
// texts with the hand-built vocabulary and on Go snippets with the course's.
//
//grade:task 2 points 2
func TestTask2_MatchesEngine(t *testing.T) {
	defer check.Recover(t)
	hand, handScores := handVocabulary()
	handTok, err := engine.NewTokenizer(hand, handScores, 0)
	if err != nil {
		t.Fatalf("engine.NewTokenizer: %v", err)
	}
	courseTok, course, courseScores := courseVocabulary(t)
	snippets := []string{
		"func (b *Buffer) Len() int {\n\treturn len(b.buf) - b.off\n}\n",
		"for i := 0; i < len(s); i++ {\n\t\tif s[i] == '\\n' {\n\t\t\tn++\n\t\t}\n\t}",
		"// Package strings implements simple functions to manipulate UTF-8 encoded strings.",
		"if err != nil {\n\treturn fmt.Errorf(\"héllo, 世界: %w\", err)\n}",
	}
	wrong := 0
	for _, c := range []struct {
		name   string
		pieces []string
		scores []float32
		tok    *engine.Tokenizer
		texts  []string
	}{
		{"the hand-built vocabulary", hand, handScores, handTok, randomTexts(200)},
		{"the course's vocabulary", course, courseScores, courseTok, snippets},
	} {
		for _, text := range c.texts {
			want, err := c.tok.Encode(text, false, false)
			if err != nil {
				t.Fatalf("engine's Encode(%q): %v", text, err)
			}
			got, err := Encode(c.pieces, c.scores, " "+text)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("Encode(%s, %q) = %s, %v;\nwant %s, the engine's Encode(%q, false, false): %s", c.name, " "+text, show(c.pieces, got), err, show(c.pieces, want), text, where(c.pieces, got, want))
				if wrong++; wrong >= 3 {
					t.Fatalf("stopping after %d texts that differ", wrong)
				}
			}
		}
	}
}
