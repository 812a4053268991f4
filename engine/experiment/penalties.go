package experiment

import (
	"context"
	"slices"
	"sort"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

// Count returns how many times id occurs in ids.
func Count(ids []int, id int) int {
	n := 0
	for _, v := range ids {
		if v == id {
			n++
		}
	}
	return n
}

// DistinctShare returns the number of different ids in ids divided by
// len(ids) (0 for no ids): 1 when no token repeats.
func DistinctShare(ids []int) float64 {
	if len(ids) == 0 {
		return 0
	}
	kinds := map[int]bool{}
	for _, id := range ids {
		kinds[id] = true
	}
	return float64(len(kinds)) / float64(len(ids))
}

// Continue generates exactly n new tokens after prompt with opts (its
// MaxNewTokens and LogitBias are replaced: the end-of-text tokens are
// banned, so the text runs to its full length) and returns their ids.
func Continue(m *engine.Model, tok *engine.Tokenizer, prompt string, n int, opts decoding.Options) []int {
	opts.LogitBias = nil
	opts = NoEnd(tok, opts)
	opts.MaxNewTokens = n
	var ids []int
	for step, err := range decoding.Generate(context.Background(), m, tok, prompt, opts) {
		if err != nil {
			panic(err)
		}
		if step.ID != decoding.NoToken {
			ids = append(ids, step.ID)
		}
	}
	return ids
}

// LoopStats continues every prompt for n tokens with opts (see Continue)
// and returns the averages over the prompts of the repeated 4-gram share
// (RepeatedNGrams) and of the distinct-token share (DistinctShare).
func LoopStats(m *engine.Model, tok *engine.Tokenizer, prompts []string, n int, opts decoding.Options) (repeated, distinct float64) {
	for _, p := range prompts {
		out := Continue(m, tok, p, n, opts)
		repeated += RepeatedNGramRate(out, 4) / float64(len(prompts))
		distinct += DistinctShare(out) / float64(len(prompts))
	}
	return repeated, distinct
}

// NextLogits encodes prompt (with BOS), runs it through a fresh state of
// m and returns its token ids and a copy of the logits for the token after
// it.
func NextLogits(m *engine.Model, tok *engine.Tokenizer, prompt string) (ids []int, logits []float32) {
	ids, err := tok.Encode(prompt, true, false)
	if err != nil {
		panic(err)
	}
	out, err := m.NewState().Prefill(ids, 0)
	if err != nil {
		panic(err)
	}
	return ids, slices.Clone(out)
}

// NextTokenOf returns the id of the token that follows prompt when the
// text goes on with more, or -1 if the tokenizer cuts prompt differently
// once more follows it.
func NextTokenOf(tok *engine.Tokenizer, prompt, more string) int {
	a, errA := tok.Encode(prompt, true, false)
	b, errB := tok.Encode(prompt+more, true, false)
	if errA != nil || errB != nil || len(b) <= len(a) || !slices.Equal(a, b[:len(a)]) {
		return -1
	}
	return b[len(a)]
}

// AfterPenalties returns the probabilities the sampler is left with once
// the penalties of opts are applied to logits, given the text so far
// (history), in the engine's order: repetition, then presence and
// frequency (both over the last PenaltyWindow tokens when it is set), then
// the no-repeat n-gram ban over the whole text. logits is not changed.
func AfterPenalties(logits []float32, history []int, opts decoding.Options) []float64 {
	z := slices.Clone(logits)
	recent := history
	if opts.PenaltyWindow > 0 && len(recent) > opts.PenaltyWindow {
		recent = recent[len(recent)-opts.PenaltyWindow:]
	}
	if opts.RepetitionPenalty != 0 {
		decoding.ApplyRepetitionPenalty(z, recent, opts.RepetitionPenalty)
	}
	decoding.ApplyPresenceFrequencyPenalty(z, recent, opts.PresencePenalty, opts.FrequencyPenalty)
	decoding.BanRepeatedNGrams(z, history, opts.NoRepeatNGram)
	return decoding.Softmax(z)
}

// Rank returns the rank of id in p: 1 for the most likely token, 1 plus
// the number of tokens strictly more likely otherwise.
func Rank(p []float64, id int) int {
	rank := 1
	for _, v := range p {
		if v > p[id] {
			rank++
		}
	}
	return rank
}

// TopTokens returns the ids of the k most likely tokens of p, most likely
// first (ties in id order); all of them if k is larger than len(p).
func TopTokens(p []float64, k int) []int {
	ids := make([]int, len(p))
	for i := range ids {
		ids[i] = i
	}
	sort.SliceStable(ids, func(a, b int) bool { return p[ids[a]] > p[ids[b]] })
	return ids[:min(k, len(ids))]
}

// FirstDifference returns the first index at which a and b differ, or the
// length of the shorter one if one starts with the other.
func FirstDifference(a, b []int) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}
