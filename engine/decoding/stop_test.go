package decoding

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStopMatcher(t *testing.T) {
	for _, c := range []struct {
		stops    []string
		include  bool
		pieces   []string
		released []string // what each Push returns
		stop     string   // the stop sequence found, if any
		flush    string
	}{
		// No stop sequence: everything passes straight through.
		{nil, false, []string{"a", "b"}, []string{"a", "b"}, "", ""},
		// Split over three pieces, held back until it completes.
		{[]string{"END"}, false, []string{"the E", "N", "D!"}, []string{"the ", "", ""}, "END", ""},
		{[]string{"END"}, true, []string{"the E", "N", "D!"}, []string{"the ", "", "END"}, "END", ""},
		// A false start is released as soon as it cannot match.
		{[]string{"END"}, false, []string{"EN", "o"}, []string{"", "ENo"}, "", ""},
		// Still possible when generation ends: Flush releases it.
		{[]string{"END"}, false, []string{"xE"}, []string{"x"}, "", "E"},
		// Two stop sequences: the one that starts first wins.
		{[]string{"cd", "bc"}, false, []string{"ab", "cd"}, []string{"a", ""}, "bc", ""},
		// A stop inside one piece drops what follows it.
		{[]string{"\n\n"}, false, []string{"one\n\ntwo"}, []string{"one"}, "\n\n", ""},
	} {
		m := NewStopMatcher(c.stops, c.include)
		var got []string
		var stop string
		for _, p := range c.pieces {
			out, s, ok := m.Push(p)
			got = append(got, out)
			if ok {
				stop = s
				break
			}
		}
		if strings.Join(got, "|") != strings.Join(c.released, "|") || stop != c.stop {
			t.Errorf("stops %q include=%v pieces %q: released %q stop %q, want %q stop %q",
				c.stops, c.include, c.pieces, got, stop, c.released, c.stop)
		}
		if f := m.Flush(); f != c.flush {
			t.Errorf("stops %q pieces %q: Flush %q, want %q", c.stops, c.pieces, f, c.flush)
		}
	}
}

// TestUTF8StreamSplits pushes a text of one- to four-byte characters cut
// into two pieces at every byte: whatever the cut, the released text is
// valid UTF-8 at every step and, joined, is the text.
func TestUTF8StreamSplits(t *testing.T) {
	const text = "aé€😀b"
	for cut := range len(text) + 1 {
		var u UTF8Stream
		first, second := u.Push(text[:cut]), u.Push(text[cut:])
		if !utf8.ValidString(first) || !utf8.ValidString(second) || first+second+u.Flush() != text {
			t.Errorf("cut at byte %d: released %q then %q", cut, first, second)
		}
	}
}

func TestUTF8Stream(t *testing.T) {
	for _, c := range []struct {
		pieces   []string
		released []string
		flush    string
	}{
		{[]string{"a", "\xc3", "\xa9b"}, []string{"a", "", "éb"}, ""},
		{[]string{"\xf0\x9f", "\x98", "\x80"}, []string{"", "", "😀"}, ""},
		// A byte that can never start a character is replaced at once.
		{[]string{"\xffa"}, []string{"\uFFFDa"}, ""},
		// A lead byte followed by a non-continuation byte is invalid.
		{[]string{"\xe2", "(x"}, []string{"", "\uFFFD(x"}, ""},
		// An unfinished character at the end becomes one U+FFFD.
		{[]string{"ok\xe2\x82"}, []string{"ok"}, "\uFFFD"},
	} {
		var u UTF8Stream
		var got []string
		for _, p := range c.pieces {
			got = append(got, u.Push(p))
		}
		if strings.Join(got, "|") != strings.Join(c.released, "|") {
			t.Errorf("pieces %q: released %q, want %q", c.pieces, got, c.released)
		}
		if f := u.Flush(); f != c.flush {
			t.Errorf("pieces %q: Flush %q, want %q", c.pieces, f, c.flush)
		}
	}
}

func TestTopLogProbs(t *testing.T) {
	logits := []float32{1, 3, 2, 3, 0}
	top := TopLogProbs(logits, 3)
	var ids []int
	for _, a := range top {
		ids = append(ids, a.ID)
		if want := LogProbOf(logits, a.ID); a.LogProb != want {
			t.Errorf("token %d: log-probability %v, want %v", a.ID, a.LogProb, want)
		}
	}
	if want := []int{1, 3, 2}; len(ids) != 3 || ids[0] != want[0] || ids[1] != want[1] || ids[2] != want[2] {
		t.Fatalf("top 3 ids %v, want %v (ties: lower id first)", ids, want)
	}
	if n := len(TopLogProbs(logits, 9)); n != 5 {
		t.Fatalf("asking for 9 of 5 tokens gave %d", n)
	}
}
