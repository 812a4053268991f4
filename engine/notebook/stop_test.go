package notebook

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
)

func TestMaxIndexAndNumberedLabels(t *testing.T) {
	if got := MaxIndex([]float64{0.1, 0.7, 0.7, 0.2}); got != 1 {
		t.Errorf("MaxIndex = %d, want 1", got)
	}
	if got := MaxIndex(nil); got != -1 {
		t.Errorf("MaxIndex(nil) = %d, want -1", got)
	}
	if got := NumberedLabels([]string{"a", " b"}); !slices.Equal(got, []string{"1 a", "2 ␣b"}) {
		t.Errorf("NumberedLabels = %q", got)
	}
}

func TestStraddlingStop(t *testing.T) {
	for _, c := range []struct {
		pieces []string
		want   string
		ok     bool
	}{
		// The first boundary is skipped; "cd" + "ef" joins 2 and 2 bytes.
		{[]string{"ab", "abcd", "efg"}, "cdef", true},
		// "bc" + "dx" occurs earlier (the text starts with it): the next boundary.
		{[]string{"bcdx", "abc", "dx", "yz"}, "dxyz", true},
		{[]string{"a", "b"}, "", false},
	} {
		got, ok := StraddlingStop(c.pieces)
		if got != c.want || ok != c.ok {
			t.Errorf("StraddlingStop(%q) = %q, %v; want %q, %v", c.pieces, got, ok, c.want, c.ok)
		}
	}
}

func TestGenerateTextAndPieces(t *testing.T) {
	m, tok, err := engine.Default()
	if err != nil {
		t.Fatal(err)
	}
	const prompt = "func (b *Buffer) Reset() {"
	text, last := GenerateText(context.Background(), m, tok, prompt, engine.Options{MaxNewTokens: 12})
	pieces := GreedyPieces(m, tok, prompt, 12)
	if last.Finish == "" || last.Stats.GeneratedTokens != len(pieces) {
		t.Errorf("last step: finish %q after %d tokens; greedy pieces %d", last.Finish, last.Stats.GeneratedTokens, len(pieces))
	}
	// Without stop sequences, all the text is released.
	if joined := strings.Join(pieces, ""); text != joined {
		t.Errorf("GenerateText = %q, the pieces join to %q", text, joined)
	}
}

func TestEndChances(t *testing.T) {
	m, tok, err := engine.Default()
	if err != nil {
		t.Fatal(err)
	}
	const text = "func f() {\n}\n"
	pieces, pEnd := EndChances(m, tok, text)
	ids, _ := tok.Encode(text, true, false)
	if len(pieces) != len(ids)-1 || len(pEnd) != len(pieces) || strings.Join(pieces, "") != text {
		t.Fatalf("%d pieces %q for %d tokens", len(pieces), pieces, len(ids))
	}
	// The last probability is the model's for the end after the whole text.
	_, logits := NextLogits(m, tok, text)
	p := engine.Softmax(logits)
	want := p[tok.EOS()]
	if tok.BOS() != tok.EOS() {
		want += p[tok.BOS()]
	}
	if got := pEnd[len(pEnd)-1]; math.Abs(got-want) > 1e-5 {
		t.Errorf("p(end) after the text = %v, want %v", got, want)
	}
}
