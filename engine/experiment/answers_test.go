package experiment

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
	"github.com/tokenbytoken/course/engine/models"
)

// TestChatIDsSmolLM2: SmolLM2's template is ChatML; the prompt is the
// user's turn and the opening of the assistant's, and its first token is
// <|im_start|> (id 1, as the GGUF header says).
func TestChatIDsSmolLM2(t *testing.T) {
	testmodel.Path(t, testmodel.SmolLM2)
	_, tok, err := models.SmolLM2()
	if err != nil {
		t.Fatal(err)
	}
	prompt, ids, err := ChatIDs(tok, "Name a colour.")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(prompt, "<|im_start|>user\nName a colour.<|im_end|>\n") || !strings.HasSuffix(prompt, "<|im_start|>assistant\n") {
		t.Errorf("prompt %q: want the user's turn in ChatML, then the assistant's opening", prompt)
	}
	if len(ids) == 0 || ids[0] != 1 || slices.Index(ids, 2) < 0 {
		t.Errorf("ids %v: want <|im_start|> (1) first and <|im_end|> (2) among them", ids)
	}
}

func TestAnswerPerToken(t *testing.T) {
	if got := (Answer{Tokens: []int{4, 5, 6, 7}, LogProb: -2}).PerToken(); got != -0.5 {
		t.Errorf("PerToken = %v, want -0.5", got)
	}
	if got := (Answer{}).PerToken(); got != 0 {
		t.Errorf("PerToken of no tokens = %v, want 0", got)
	}
	table := AnswersTable([]Answer{{Label: "width 2", Tokens: []int{1, 2}, LogProb: -1, Ended: true}}, func([]int) string { return "hi" })
	if want := "width 2:         -0.50 per token,  2 tokens, ended: true  \"hi\"\n"; table != want {
		t.Errorf("table %q, want %q", table, want)
	}
}

// TestAnswersOnTheCourseModel: beam search of width 1 is greedy decoding,
// and every answer's log-probability is the sum of its tokens' under the
// model, scored again by teacher forcing.
func TestAnswersOnTheCourseModel(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	const prompt = "func main() {"
	ids, err := tok.Encode(prompt, true, false)
	if err != nil {
		t.Fatal(err)
	}
	beams, err := BeamAnswers(m, tok, ids, []int{1, 3}, 12, 1)
	if err != nil {
		t.Fatal(err)
	}
	greedy, err := GreedyTokens(engine.NewModelLM(m, 1), ids, 12, tok.IsEnd)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(beams[0].Tokens, greedy) || beams[0].Label != "width 1" {
		t.Errorf("width 1 gave %v (%q), want greedy's %v", beams[0].Tokens, beams[0].Label, greedy)
	}
	samples, err := SampledAnswers(m, tok, prompt, 12, 1, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 2 || samples[1].Label != "sample, seed 2" {
		t.Fatalf("samples %+v: want two, the second of seed 2", samples)
	}
	for _, a := range append(beams, samples...) {
		seq := slices.Concat(ids, a.Tokens)
		rows, err := engine.NewModelLM(m, 1).NextLogits(seq[:len(seq)-1], len(a.Tokens))
		if err != nil {
			t.Fatal(err)
		}
		var want float64
		for i, id := range a.Tokens {
			want += decoding.LogProbOf(rows[i], id)
		}
		if math.Abs(a.LogProb-want) > 1e-3 {
			t.Errorf("%s: log p %v, teacher forcing gives %v", a.Label, a.LogProb, want)
		}
		if ended := len(a.Tokens) > 0 && tok.IsEnd(a.Tokens[len(a.Tokens)-1]); a.Ended != ended {
			t.Errorf("%s: ended %v, but its last token ends the text: %v", a.Label, a.Ended, ended)
		}
	}
}
