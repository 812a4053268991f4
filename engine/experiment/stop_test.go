package experiment

import (
	"context"
	"encoding/json"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
	"github.com/tokenbytoken/course/engine/models"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestMaxIndex(t *testing.T) {
	if got := MaxIndex([]float64{0.1, 0.7, 0.7, 0.2}); got != 1 {
		t.Errorf("MaxIndex = %d, want 1", got)
	}
	if got := MaxIndex(nil); got != -1 {
		t.Errorf("MaxIndex(nil) = %d, want -1", got)
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
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	const prompt = "func (b *Buffer) Reset() {"
	text, last := GenerateText(context.Background(), m, tok, prompt, decoding.Options{MaxNewTokens: 12})
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
	m, tok, err := models.Default()
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
	p := decoding.Softmax(logits)
	want := p[tok.EOS()]
	if tok.BOS() != tok.EOS() {
		want += p[tok.BOS()]
	}
	if got := pEnd[len(pEnd)-1]; math.Abs(got-want) > 1e-5 {
		t.Errorf("p(end) after the text = %v, want %v", got, want)
	}
}

func TestEndChancesAfterIsEndChances(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	// For the course's model the end is <s> or </s>, as EndChances counts it:
	// after the empty prompt (<s> alone), the same text read token by token
	// must get the same chances, up to the rounding of a batched prefill.
	const text = "func f() {\n}\n"
	_, want := EndChances(m, tok, text)
	ids, _ := tok.Encode(text, true, false)
	got, err := EndChancesAfter(m, tok, "", ids[1:])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ids) {
		t.Fatalf("%d chances for %d tokens after the prompt, want %d", len(got), len(ids)-1, len(ids))
	}
	for i, w := range want {
		if math.Abs(got[i+1]-w) > 1e-5 {
			t.Errorf("after token %d: p(end) %v, EndChances %v", i+1, got[i+1], w)
		}
	}
	if _, err := EndChancesAfter(m, tok, "", []int{m.Config.VocabSize}); err == nil || !strings.Contains(err.Error(), strconv.Itoa(m.Config.VocabSize)) {
		t.Errorf("a token outside the vocabulary: error %v, want one naming it", err)
	}
	if _, err := EndChancesAfter(m, tok, "", make([]int, m.Config.SeqLen)); err == nil {
		t.Error("more tokens than the context: no error")
	}
	if _, err := EndChancesAfter(nil, tok, "", nil); err == nil {
		t.Error("no model: no error")
	}
}

// TestEndChancesAfterOnSmolLM2 reads llama.cpp's recorded chat answers that
// end the turn: where llama.cpp's next token was <|im_end|>, the chance of
// ending must be at least the probability llama.cpp gave <|im_end|> (up to
// the quantized products' difference the engine's own test bounds), and
// the chance of ending after the prompt (the answer not begun) small.
func TestEndChancesAfterOnSmolLM2(t *testing.T) {
	testmodel.Path(t, testmodel.SmolLM2)
	m, tok, err := models.SmolLM2()
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	for _, r := range llamaCppChats(t) {
		steps := r.Steps
		if len(steps) == 0 || steps[len(steps)-1].ID != 2 {
			continue
		}
		var ids []int
		for _, s := range steps[:len(steps)-1] {
			ids = append(ids, s.ID)
		}
		got, err := EndChancesAfter(m, tok, r.Prompt, ids)
		if err != nil {
			t.Fatal(err)
		}
		last := steps[len(steps)-1]
		want := math.Exp(last.Top[0][1] - last.LSE)
		if end := got[len(got)-1]; end < want*math.Exp(-0.6) {
			t.Errorf("%q: p(end) before <|im_end|> is %.3f; llama.cpp gave <|im_end|> %.3f", r.Prompt, end, want)
		}
		if got[0] > 0.01 {
			t.Errorf("%q: p(end) before the answer begins is %.3f", r.Prompt, got[0])
		}
		runs++
	}
	if runs == 0 {
		t.Error("no recorded chat answer ends with <|im_end|>")
	}
}

// llamaCppRun is one of llama.cpp's recorded greedy runs (the engine's
// testdata/llamacpp/README.md describes them).
type llamaCppRun struct {
	Prompt string `json:"prompt"`
	Steps  []struct {
		ID  int          `json:"id"`
		LSE float64      `json:"lse"`
		Top [][2]float64 `json:"top"`
	} `json:"steps"`
}

// llamaCppChats returns the recorded runs whose prompt is a chat.
func llamaCppChats(t *testing.T) []llamaCppRun {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "llamacpp", "smollm2-greedy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []llamaCppRun
	for line := range strings.Lines(string(data)) {
		var r llamaCppRun
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(r.Prompt, "<|im_start|>") {
			out = append(out, r)
		}
	}
	return out
}
