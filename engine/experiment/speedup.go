package experiment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

// Wall-clock speed-up of speculative decoding (notebook 10): plain greedy
// decoding and speculative decoding timed in interleaved rounds, and the
// cost of the target's passes that explains the result.

// SpeedTrial is plain greedy decoding against speculative decoding with
// one drafter and several γ, each run the same number of times.
type SpeedTrial struct {
	Gammas []int
	Tokens []int // plain greedy decoding's tokens
	// Plain holds plain decoding's decode time (decoding.Stats.Decode: the
	// prompt's pass excluded) in every round; Spec[i] that of speculative
	// decoding with γ = Gammas[i].
	Plain []time.Duration
	Spec  [][]time.Duration
	// Stats are the speculative runs' counts, one per γ (every round
	// makes the same tokens, so they are the same in every round).
	Stats []decoding.SpeculativeStats
}

// SpeedUp is the median decode time of plain decoding over that of
// speculative decoding with γ = Gammas[i].
func (t SpeedTrial) SpeedUp(i int) float64 {
	spec := Median(t.Spec[i])
	if spec <= 0 {
		return 0
	}
	return Median(t.Plain).Seconds() / spec.Seconds()
}

// Table prints the trial, a line per γ: the acceptance rate, tokens per
// target pass, median decode time and speed-up.
func (t SpeedTrial) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "plain greedy: %d tokens, median %.1f ms over %d rounds (%.1f ms per token)\n",
		len(t.Tokens), Milliseconds(Median(t.Plain)), len(t.Plain), Milliseconds(Median(t.Plain))/float64(max(1, len(t.Tokens))))
	for i, g := range t.Gammas {
		st := t.Stats[i]
		fmt.Fprintf(&b, "γ = %d: α = %.2f, %.2f tokens per target pass, median %.1f ms, speed-up %.2f×\n",
			g, st.AcceptanceRate(), st.TokensPerTargetPass(), Milliseconds(Median(t.Spec[i])), t.SpeedUp(i))
	}
	return b.String()
}

// MeasureSpeedUp times decoding.Generate on prompt with at most maxNew new
// tokens, greedily: plainly, and with decoding.Speculation{drafter, γ} for
// every γ of gammas. The runs go in rounds, one of each per round (plain
// decoding first, then the values of γ, in the opposite order every other
// round), so that a slow spell of the machine falls on all of them alike.
// Every speculative run must give plain decoding's tokens: if one does
// not, that is an error.
func MeasureSpeedUp(m *engine.Model, tok *engine.Tokenizer, prompt string, maxNew int, drafter decoding.Drafter, gammas []int, rounds int) (SpeedTrial, error) {
	t := SpeedTrial{Gammas: slices.Clone(gammas), Spec: make([][]time.Duration, len(gammas)), Stats: make([]decoding.SpeculativeStats, len(gammas))}
	if len(gammas) == 0 || rounds < 1 {
		return t, fmt.Errorf("%d values of γ and %d rounds: need at least one of each", len(gammas), rounds)
	}
	// run is one generation; i is the index of its γ, or -1 for plain.
	run := func(i int) error {
		opts := decoding.Options{MaxNewTokens: maxNew}
		if i >= 0 {
			opts.Decoder = decoding.Speculation{Drafter: drafter, Gamma: gammas[i]}
		}
		var ids []int
		var stats *decoding.Stats
		for step, err := range decoding.Generate(context.Background(), m, tok, prompt, opts) {
			if err != nil {
				return err
			}
			if step.ID != decoding.NoToken {
				ids = append(ids, step.ID)
			}
			stats = step.Stats
		}
		if stats == nil {
			return errors.New("generation ended without its statistics")
		}
		if i < 0 {
			t.Tokens = ids
			t.Plain = append(t.Plain, stats.Decode)
			return nil
		}
		if !slices.Equal(ids, t.Tokens) {
			return fmt.Errorf("γ = %d: speculative decoding made %d tokens that differ from plain greedy decoding's %d at token %d",
				gammas[i], len(ids), len(t.Tokens), commonLen(ids, t.Tokens))
		}
		t.Spec[i] = append(t.Spec[i], stats.Decode)
		t.Stats[i] = *stats.Report.(*decoding.SpeculativeStats)
		return nil
	}
	for r := range rounds {
		order := make([]int, 0, len(gammas)+1)
		for i := -1; i < len(gammas); i++ {
			order = append(order, i)
		}
		if r%2 == 1 {
			slices.Reverse(order[1:]) // plain first always: it sets the tokens to match
		}
		for _, i := range order {
			if err := run(i); err != nil {
				return t, err
			}
		}
	}
	return t, nil
}

// commonLen is the length of the longest common start of a and b.
func commonLen(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Median is the middle of durations (the mean of the two middle ones when
// their number is even); 0 for none.
func Median(durations []time.Duration) time.Duration {
	if len(durations) == 0 {
		return 0
	}
	d := slices.Clone(durations)
	slices.Sort(d)
	if len(d)%2 == 1 {
		return d[len(d)/2]
	}
	return (d[len(d)/2-1] + d[len(d)/2]) / 2
}

// PassCosts times, after seq, one decode step of m (State.Forward) and a
// pass over k tokens that returns every one's logits (State.PrefillAll, as
// speculative decoding's verification does), for each k of ks. The passes
// go in rounds, each timed runs times, and the medians are returned: step
// and verify[i] for ks[i]. The passes write positions len(seq)… of the
// cache again and again, as a verification does after a rejection.
func PassCosts(m *engine.Model, seq []int, ks []int, runs int) (step time.Duration, verify []time.Duration, err error) {
	if len(seq) < 2 || runs < 1 || len(ks) == 0 {
		return 0, nil, fmt.Errorf("a sequence of %d tokens, %d runs and %d pass sizes: need at least 2 tokens, 1 run and 1 size", len(seq), runs, len(ks))
	}
	if k := slices.Min(ks); k < 1 {
		return 0, nil, fmt.Errorf("a pass over %d tokens: each pass needs at least 1", k)
	}
	last := slices.Max(ks)
	if len(seq)+last > m.Config.SeqLen {
		return 0, nil, fmt.Errorf("%d tokens after a sequence of %d do not fit the context of %d", last, len(seq), m.Config.SeqLen)
	}
	st := m.NewState()
	if _, err := st.Prefill(seq, 0); err != nil {
		return 0, nil, err
	}
	// The tokens fed: the sequence's own start again, which is as good as
	// any text for timing.
	feed := make([]int, last)
	for i := range feed {
		feed[i] = seq[i%len(seq)]
	}
	pos := len(seq)
	steps := make([]time.Duration, 0, runs)
	passes := make([][]time.Duration, len(ks))
	for range runs {
		start := time.Now()
		if _, err := st.Forward(feed[0], pos); err != nil {
			return 0, nil, err
		}
		steps = append(steps, time.Since(start))
		for i, k := range ks {
			start := time.Now()
			if _, err := st.PrefillAll(feed[:k], pos); err != nil {
				return 0, nil, err
			}
			passes[i] = append(passes[i], time.Since(start))
		}
	}
	verify = make([]time.Duration, len(ks))
	for i := range ks {
		verify[i] = Median(passes[i])
	}
	return Median(steps), verify, nil
}
