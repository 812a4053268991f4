package penalties

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestTask4_Recent: Recent keeps the last window tokens; a window of 0, a
// negative one, or one at least as long as the history keeps all of it.
//
//grade:task 4 points 1
func TestTask4_Recent(t *testing.T) {
	defer check.Recover(t)
	h := []int{1, 2, 3, 4, 5}
	for _, c := range []struct {
		window int
		want   []int
	}{
		{2, []int{4, 5}}, {1, []int{5}}, {4, []int{2, 3, 4, 5}},
		{5, h}, {10, h}, {0, h}, {-1, h},
	} {
		if got := Recent(slices.Clone(h), c.window); !slices.Equal(got, c.want) {
			t.Errorf("Recent(%v, %d) = %s; want %v", h, c.window, check.Vec(got), c.want)
		}
	}
}

// TestTask4_Apply: Apply runs the repetition penalty before presence and
// frequency, limits them to the window but not the n-gram ban, treats
// Repetition 0 as off, and puts the logits back when every token is banned.
//
//grade:task 4 points 2
func TestTask4_Apply(t *testing.T) {
	defer check.Recover(t)
	for _, c := range []struct {
		p       Penalties
		logits  []float32
		history []int
		want    []float32
		why     string
	}{
		{Penalties{Repetition: 2, Presence: 1}, []float32{4, -1, 1}, []int{0, 1},
			[]float32{1, -3, 1}, "repetition first (4/2 = 2, -1×2 = -2), then presence (-1); the other order gives [1.5 -4 1]"},
		{Penalties{Frequency: 1, Window: 2}, []float32{5, 5, 5, 5}, []int{0, 0, 1, 2},
			[]float32{5, 4, 4, 5}, "the window of 2 sees only [1 2]"},
		{Penalties{Repetition: 2, Window: 1}, []float32{4, 4, 4}, []int{0, 1, 0, 2},
			[]float32{4, 4, 2}, "the window of 1 sees only [2]"},
		{Penalties{NoRepeatNGram: 2, Window: 1}, []float32{1, 1, 1, 1}, []int{0, 1, 2, 0},
			[]float32{1, inf, 1, 1}, "the n-gram ban reads the whole history: 0 was followed by 1"},
		{Penalties{Presence: 0.5}, []float32{2, 2}, []int{0},
			[]float32{1.5, 2}, "Repetition 0 means off"},
		{Penalties{Presence: 1, NoRepeatNGram: 2}, []float32{1, 2}, []int{0, 1, 0, 0},
			[]float32{1, 2}, "0 was followed by 1 and by 0: both banned, so the logits are put back as given"},
		{Penalties{}, []float32{1, -1}, []int{0, 1}, []float32{1, -1}, "no penalties: nothing changes"},
	} {
		z := slices.Clone(c.logits)
		c.p.Apply(z, slices.Clone(c.history))
		if !sameLogits(z, c.want) {
			t.Error(logitsMismatch(fmt.Sprintf("%+v.Apply(%v, history %v)", c.p, c.logits, c.history), z, c.want, " ("+c.why+")"))
		}
	}
}

// TestTask4_GreedyOnModel: on the course's model, greedy decoding with your
// penalties applied in the Pick of decoding.Decode writes the same tokens as
// the engine's own sampler at temperature 0 with the same Options.
//
//grade:task 4 points 2
func TestTask4_GreedyOnModel(t *testing.T) {
	defer check.Recover(t)
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	prompt, err := tok.Encode("// Package ", true, false) // greedy loops on "the passes of the passes of …"
	if err != nil {
		t.Fatal(err)
	}
	lm := engine.NewModelLM(m, 1)
	const n = 60
	// run generates n tokens greedily with pick, which also gets the text so
	// far (the prompt without BOS, then every generated token).
	run := func(pick func(logits []float32, history []int) int) ([]int, error) {
		history := slices.Clone(prompt[1:])
		var out []int
		for step, err := range decoding.Decode(context.Background(), lm, prompt, decoding.Options{MaxNewTokens: n, Decoder: decoding.Pick(func(l []float32) int { return pick(l, history) }), IsEnd: tok.IsEnd}) {
			id := step.ID
			if err != nil {
				return out, err
			}
			out = append(out, id)
			history = append(history, id)
		}
		return out, nil
	}
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for _, p := range []Penalties{
		{Repetition: 1.3},
		{Presence: 1, Frequency: 0.5},
		{Frequency: 0.5, Window: 16},
		{NoRepeatNGram: 3},
		{Repetition: 1.2, Presence: 0.3, Frequency: 0.3, Window: 32, NoRepeatNGram: 4},
	} {
		opts := decoding.Options{RepetitionPenalty: p.Repetition, PresencePenalty: p.Presence, FrequencyPenalty: p.Frequency,
			PenaltyWindow: p.Window, NoRepeatNGram: p.NoRepeatNGram}
		es, err := opts.NewSampler(m.Config.VocabSize)
		if err != nil {
			t.Fatal(err)
		}
		want, err := run(func(l []float32, h []int) int { id, _ := es.Sample(l, h...); return id })
		if err != nil {
			t.Fatal(err)
		}
		got, err := run(func(l []float32, h []int) int {
			z := slices.Clone(l)
			p.Apply(z, slices.Clone(h))
			return decoding.Argmax(z)
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			at := 0
			for at < len(got) && at < len(want) && got[at] == want[at] {
				at++
			}
			fails.Errorf("%+v: greedy decoding with your Apply parts from the engine's (same settings) at token %d, after %q:\nyours  %q\nengine %q",
				p, at, clipStart(tok.DecodeAll(want[:at]), 40), clip(tok.DecodeAll(got[at:]), 60), clip(tok.DecodeAll(want[at:]), 60))
		}
	}
}
