package experiment

import (
	"context"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
	"github.com/tokenbytoken/course/engine/models"
)

func TestMiddleOf(t *testing.T) {
	cases := []struct {
		text string
		size int
		want string
	}{
		{"ab\ncd\nef\ngh\n", 100, "ef\ngh\n"}, // the middle (6) starts a line
		{"ab\ncd\nef\ngh\n", 4, "ef\ng"},
		{"abcdef\ngh", 3, "gh"}, // from 4 to the next line
		{"abcdefgh", 3, ""},     // no line starts in the second half
	}
	for _, c := range cases {
		if got := MiddleOf(c.text, c.size); got != c.want {
			t.Errorf("MiddleOf(%q, %d) = %q; want %q", c.text, c.size, got, c.want)
		}
	}
}

func TestGoSource(t *testing.T) {
	texts, err := GoSource([]string{"strings/strings.go", "sort/sort.go"}, 500)
	if err != nil {
		t.Skipf("no Go installation to read: %v", err)
	}
	if len(texts) != 2 {
		t.Fatalf("%d texts for 2 files", len(texts))
	}
	for _, s := range texts {
		if len(s) != 500 {
			t.Errorf("text of %d bytes; want 500", len(s))
		}
	}
}

func TestTopProbAndSurestSteps(t *testing.T) {
	if got := TopProb([]float32{0, 0}); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("TopProb([0 0]) = %v; want 0.5", got)
	}
	steps := [][]float32{{0, 0}, {5, 0}, {0, 0, 0, 0}, {5, 0}}
	if sure, unsure := SurestSteps(steps); sure != 1 || unsure != 2 {
		t.Errorf("SurestSteps = %d, %d; want 1 (p ≈ 0.99), 2 (p = 0.25)", sure, unsure)
	}
}

// TestContinuationsMatchGenerate: every text is what decoding.Generate gives
// for that prompt and seed alone, in prompt-then-seed order.
func TestContinuationsMatchGenerate(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	prompts := []string{"func main() {\n\t", "// Package "}
	opts := decoding.Options{Temperature: 1, TopP: 0.9, LogitBias: map[int]float32{tok.EOS(): float32(math.Inf(-1))}}
	texts, err := Continuations(m, tok, prompts, 12, opts, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) != 4 {
		t.Fatalf("%d texts; want 2 prompts × 2 seeds", len(texts))
	}
	i := 0
	for _, p := range prompts {
		for _, seed := range []uint64{3, 4} {
			o := opts
			o.Seed, o.MaxNewTokens = seed, 12
			var want []int
			for step, err := range decoding.Generate(context.Background(), m, tok, p, o) {
				if err != nil {
					t.Fatal(err)
				}
				if step.ID != decoding.NoToken && !tok.IsEnd(step.ID) {
					want = append(want, step.ID)
				}
			}
			if !slices.Equal(texts[i], want) || len(want) != 12 {
				t.Errorf("text %d (%q, seed %d) = %v; decoding.Generate gives %v", i, p, seed, texts[i], want)
			}
			i++
		}
	}
	if _, err := Continuations(m, tok, prompts, 5, decoding.Options{TopP: -1}); err == nil {
		t.Error("invalid options should be an error")
	}
}

// TestSampledSteps: the first step's logits are the prompt's, every text
// grows from the one before, and a run is the same for the same seed.
func TestSampledSteps(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	const prompt = "for i := 0; i <"
	steps, texts, err := SampledSteps(m, tok, prompt, 10, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 10 || len(texts) != 10 || texts[0] != prompt {
		t.Fatalf("%d steps, %d texts, first %q", len(steps), len(texts), texts[0])
	}
	ids, _ := tok.Encode(prompt, true, false)
	first, err := m.NewState().Prefill(ids, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(steps[0], first) {
		t.Error("the first step's logits are not the prompt's")
	}
	for i := 1; i < len(texts); i++ {
		if !strings.HasPrefix(texts[i], texts[i-1]) || len(texts[i]) <= len(texts[i-1]) {
			t.Errorf("text %d %q does not grow from %q", i, texts[i], texts[i-1])
		}
	}
	again, _, _ := SampledSteps(m, tok, prompt, 10, 7)
	if !slices.EqualFunc(steps, again, slices.Equal) {
		t.Error("the same seed gave other steps")
	}
}

// TestNextTokens: the most likely tokens after a prompt, in order, without
// the end of the text.
func TestNextTokens(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	ids, next, err := NextTokens(m, tok, "}\n", 5)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := tok.Encode("}\n", true, false)
	if !slices.Equal(ids, want) || len(next) != 5 {
		t.Fatalf("ids %v (want %v), %d next tokens", ids, want, len(next))
	}
	logits, _ := m.NewState().Prefill(ids, 0)
	var all []decoding.TokenLogProb
	for _, tp := range decoding.TopLogProbs(logits, 7) {
		if !tok.IsEnd(tp.ID) {
			all = append(all, tp)
		}
	}
	if !slices.Equal(next, all[:5]) {
		t.Errorf("NextTokens = %v; want %v", next, all[:5])
	}
}

func TestNoEnd(t *testing.T) {
	_, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	own := map[int]float32{7: 2.5}
	opts := NoEnd(tok, decoding.Options{Temperature: 0.5, LogitBias: own})
	inf := float32(math.Inf(-1))
	want := map[int]float32{7: 2.5, tok.BOS(): inf, tok.EOS(): inf}
	if !maps.Equal(opts.LogitBias, want) || opts.Temperature != 0.5 {
		t.Errorf("NoEnd gave %v (temperature %v), want bias %v", opts.LogitBias, opts.Temperature, want)
	}
	if len(own) != 1 {
		t.Errorf("NoEnd changed the caller's map: %v", own)
	}
}

// TestNoEndSmolLM2: an instruction-tuned model ends a text with any of its
// end tokens; SmolLM2's are <|endoftext|> (0) and <|im_end|> (2), and its
// BOS is <|im_start|> (1), as its GGUF header says.
func TestNoEndSmolLM2(t *testing.T) {
	testmodel.Path(t, testmodel.SmolLM2)
	m, tok, err := models.SmolLM2()
	if err != nil {
		t.Fatal(err)
	}
	opts := NoEnd(tok, decoding.Options{})
	inf := float32(math.Inf(-1))
	if want := map[int]float32{0: inf, 1: inf, 2: inf}; !maps.Equal(opts.LogitBias, want) {
		t.Errorf("NoEnd banned %v, want %v", opts.LogitBias, want)
	}
	// A greedy answer of a chat turn ends at <|im_end|>; banned, it runs on.
	prompt, err := tok.ChatPrompt([]engine.Message{{Role: "user", Content: "Hi"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if ids := Continue(m, tok, prompt, 40, decoding.Options{}); len(ids) != 40 {
		t.Errorf("Continue gave %d tokens, want 40", len(ids))
	}
}
