package engine

import (
	"context"
	"fmt"
	"iter"
	"math"
)

// Options control a generation.
type Options struct {
	// MaxNewTokens caps the number of generated tokens; 0 means "until the
	// context is full".
	MaxNewTokens int
	// Temperature 0 is greedy decoding; higher values sample more freely.
	Temperature float64
	// TopP restricts sampling to the nucleus; 1 (or 0, meaning unset)
	// disables it.
	TopP float64
	// Seed makes sampling reproducible.
	Seed uint64
}

// FinishReason says which condition ended a generation.
type FinishReason string

const (
	// FinishEOS: the model produced its end-of-text token.
	FinishEOS FinishReason = "eos"
	// FinishLength: MaxNewTokens tokens were generated.
	FinishLength FinishReason = "length"
	// FinishContext: the model's context window is full.
	FinishContext FinishReason = "context"
)

// Step is one generated token.
type Step struct {
	ID      int     // token id
	Text    string  // its text (bytes; a byte-fallback token may hold part of a UTF-8 character)
	LogProb float64 // log-probability the model gave it (before temperature)
	Pos     int     // its position in the sequence (the prompt starts at 0)
	// Finish is set on the last step and says why generation ended. When
	// the model ends the text, the last step is its end-of-text token, with
	// empty Text.
	Finish FinishReason
}

// IsEnd reports whether a generated token ends the text. In llama2.c
// checkpoints a generated BOS ends the sample; EOS does as well.
func (t *Tokenizer) IsEnd(id int) bool { return id == t.bos || id == t.eos }

// Generate runs the autoregressive loop: it encodes the prompt (after BOS),
// feeds it through the model, then repeatedly turns the logits of the last
// position into a token, yields it, and feeds it back — until the model ends
// the text, MaxNewTokens is reached or the context is full. The prompt must
// leave room for at least one new token. Cancelling ctx stops the loop with
// ctx's error.
func Generate(ctx context.Context, m *Model, tok *Tokenizer, prompt string, opts Options) iter.Seq2[Step, error] {
	return func(yield func(Step, error) bool) {
		fail := func(err error) { yield(Step{}, err) }
		if tok.VocabSize() != m.Config.VocabSize {
			fail(fmt.Errorf("tokenizer has %d tokens but model %s has vocab_size %d", tok.VocabSize(), m.Name, m.Config.VocabSize))
			return
		}
		if opts.MaxNewTokens < 0 {
			fail(fmt.Errorf("max new tokens = %d: must be 0 (no limit) or positive", opts.MaxNewTokens))
			return
		}
		topP := opts.TopP
		if topP == 0 {
			topP = 1
		}
		sampler, err := NewSampler(opts.Temperature, topP, opts.Seed)
		if err != nil {
			fail(err)
			return
		}
		ids, err := tok.Encode(prompt, true, false)
		if err != nil {
			fail(fmt.Errorf("encoding prompt: %w", err))
			return
		}
		if len(ids) >= m.Config.SeqLen {
			fail(fmt.Errorf("prompt is %d tokens (with BOS) but the model's context is %d: no room to generate", len(ids), m.Config.SeqLen))
			return
		}
		st := m.NewState()
		// Prefill: every prompt token but the last only fills the cache.
		for pos, id := range ids[:len(ids)-1] {
			if err := ctx.Err(); err != nil {
				fail(err)
				return
			}
			st.forward(id, pos)
		}
		token, pos := ids[len(ids)-1], len(ids)-1
		for n := 1; ; n++ {
			if err := ctx.Err(); err != nil {
				fail(err)
				return
			}
			st.forward(token, pos)
			next := sampler.Sample(st.logits)
			step := Step{ID: next, Pos: pos + 1, LogProb: logProbOf(st.logits, next)}
			switch {
			case tok.IsEnd(next):
				step.Finish = FinishEOS
			case n == opts.MaxNewTokens:
				step.Finish = FinishLength
			case pos+1 >= m.Config.SeqLen:
				step.Finish = FinishContext
			}
			if step.Finish != FinishEOS {
				step.Text = tok.Decode(token, next)
			}
			if !yield(step, nil) || step.Finish != "" {
				return
			}
			token, pos = next, pos+1
		}
	}
}

// logProbOf returns log softmax(logits)[id] without allocating.
func logProbOf(logits []float32, id int) float64 {
	mx := math.Inf(-1)
	for _, z := range logits {
		mx = max(mx, float64(z))
	}
	var sum float64
	for _, z := range logits {
		sum += math.Exp(float64(z) - mx)
	}
	return float64(logits[id]) - mx - math.Log(sum)
}
