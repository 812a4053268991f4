package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"math"
	"net/http"
	"time"
)

// fingerprint names the server's build in system_fingerprint, as the API
// does, so that a client can tell answers of one configuration apart.
const fingerprint = "tokenbytoken"

// choice is one generated answer: its text, the log-probability of each of
// its tokens, why it ended and how many tokens it took.
type choice struct {
	text         string
	tokens       []decoding.Step // the steps that carry a token, for log-probabilities
	finish       decoding.FinishReason
	generated    int
	promptTokens int
}

// apiFinish is the API's finish_reason for the engine's: "stop" when the
// text ended by itself (the end token, a stop string, a complete answer
// to a response format), "length" when a limit cut it.
func apiFinish(f decoding.FinishReason) string {
	switch f {
	case decoding.FinishLength, decoding.FinishContext, decoding.FinishDeadline:
		return "length"
	}
	return "stop"
}

// answer generates the plan's choices and writes them: one JSON response,
// or a stream of Server-Sent Events.
func answer(w http.ResponseWriter, ctx context.Context, p *plan) {
	if p.stream {
		stream(w, ctx, p)
		return
	}
	choices := make([]choice, p.n)
	for i := range p.n {
		c, err := generate(ctx, p, i, nil)
		if ctx.Err() != nil {
			return // the client is gone: nobody to answer
		}
		if err != nil {
			writeError(w, generationError(err))
			return
		}
		choices[i] = c
	}
	id, created := newID("chatcmpl-"), time.Now().Unix()
	u := totals(p, choices)
	if p.chat {
		out := chatCompletion{ID: id, Object: "chat.completion", Created: created, Model: p.model.ID, SystemFingerprint: fingerprint, Usage: &u}
		for i, c := range choices {
			text, finish := c.text, apiFinish(c.finish)
			ch := chatChoice{Index: i, Message: &chatOutput{Role: "assistant", Content: &text}, FinishReason: &finish, EngineFinishReason: string(c.finish)}
			if p.logprobs {
				ch.Logprobs = chatLogprobsOf(c.tokens)
			}
			out.Choices = append(out.Choices, ch)
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	out := textCompletion{ID: newID("cmpl-"), Object: "text_completion", Created: created, Model: p.model.ID, SystemFingerprint: fingerprint, Usage: &u}
	for i, c := range choices {
		finish := apiFinish(c.finish)
		ch := textChoice{Index: i, Text: c.text, FinishReason: &finish, EngineFinishReason: string(c.finish)}
		if p.logprobs {
			ch.Logprobs = textLogprobsOf(c.tokens, 0)
		}
		out.Choices = append(out.Choices, ch)
	}
	writeJSON(w, http.StatusOK, out)
}

// totals is a request's usage: the prompt once, every choice's tokens.
func totals(p *plan, choices []choice) usage {
	u := usage{PromptTokens: p.promptTokens}
	for _, c := range choices {
		u.CompletionTokens += c.generated
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

// generate runs the engine for choice i. Each choice has its own seed, the
// request's plus i, so that the same seed gives the same choices. onStep,
// when set, sees every step as it comes (streaming).
func generate(ctx context.Context, p *plan, i int, onStep func(decoding.Step) bool) (choice, error) {
	opts := p.opts
	opts.Seed += uint64(i)
	opts.TopLogProbs = p.topLogprobs
	opts.NoLogProbs = !p.logprobs
	var c choice
	if sched := p.sched; sched != nil {
		seq, err := sched.NewSequence()
		if err != nil {
			return c, err
		}
		defer seq.Close()
		opts.Decoder = decoding.Shared{Seq: seq}
	}
	for step, err := range decoding.Generate(ctx, p.model.Model, p.model.Tokenizer, p.prompt, opts) {
		if err != nil {
			return c, err
		}
		c.text += step.Text
		if step.ID != decoding.NoToken && step.Finish != decoding.FinishEOS {
			c.tokens = append(c.tokens, step)
		}
		if step.Finish != "" {
			c.finish = step.Finish
			if step.Stats != nil {
				c.generated, c.promptTokens = step.Stats.GeneratedTokens, step.Stats.PromptTokens
			}
		}
		if onStep != nil && !onStep(step) {
			break
		}
	}
	return c, nil
}

// generationError is the API's error for a generation that failed after
// its request was accepted.
func generationError(err error) *apiError {
	return &apiError{Status: http.StatusInternalServerError, Type: "server_error", Message: fmt.Sprintf("the generation failed: %v", err)}
}

// chatLogprobsOf puts steps' log-probabilities in the chat API's shape.
func chatLogprobsOf(steps []decoding.Step) *chatLogprobs {
	out := &chatLogprobs{Content: []tokenLogprob{}}
	for _, s := range steps {
		t := tokenLogprob{Token: s.Piece, Logprob: finiteLogprob(s.LogProb), Bytes: bytesOf(s.Piece), TopLogprobs: []topLogprob{}}
		for _, top := range s.TopLogProbs {
			t.TopLogprobs = append(t.TopLogprobs, topLogprob{Token: top.Text, Logprob: finiteLogprob(top.LogProb), Bytes: bytesOf(top.Text)})
		}
		out.Content = append(out.Content, t)
	}
	return out
}

// textLogprobsOf puts steps' log-probabilities in the legacy API's shape;
// offset is where the first token's text starts in the choice's text.
func textLogprobsOf(steps []decoding.Step, offset int) *textLogprobs {
	out := &textLogprobs{Tokens: []string{}, TokenLogprobs: []float64{}, TopLogprobs: []map[string]float64{}, TextOffset: []int{}}
	for _, s := range steps {
		out.Tokens = append(out.Tokens, s.Piece)
		out.TokenLogprobs = append(out.TokenLogprobs, finiteLogprob(s.LogProb))
		top := map[string]float64{}
		for _, t := range s.TopLogProbs {
			top[t.Text] = finiteLogprob(t.LogProb)
		}
		out.TopLogprobs = append(out.TopLogprobs, top)
		out.TextOffset = append(out.TextOffset, offset)
		offset += len(s.Piece)
	}
	return out
}

// finiteLogprob keeps JSON valid: a token the model gave no chance at all
// (a banned one, -Inf) is sent as the API sends it, -9999.
func finiteLogprob(lp float64) float64 {
	if math.IsInf(lp, -1) || math.IsNaN(lp) {
		return -9999
	}
	return lp
}

// bytesOf lists a token's bytes, which tell its exact text when the token
// is part of a UTF-8 character (its token string then cannot).
func bytesOf(s string) []int {
	out := make([]int, len(s))
	for i := range len(s) {
		out[i] = int(s[i])
	}
	return out
}

// stream writes the answer as Server-Sent Events: a chunk for each piece
// of text the engine releases (whole UTF-8 characters, held back while a
// stop string may be starting), with the log-probabilities of the tokens
// it covers; a last chunk with the finish reason; the usage, when asked;
// and data: [DONE].
func stream(w http.ResponseWriter, ctx context.Context, p *plan) {
	flusher, _ := w.(http.Flusher)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	send := func(v any) bool {
		data, err := json.Marshal(v)
		if err != nil {
			return false
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	id, created := newID("chatcmpl-"), time.Now().Unix()
	if !p.chat {
		id = newID("cmpl-")
	}
	chunk := func(i int, text *string, role string, steps []decoding.Step, offset int, finish decoding.FinishReason) any {
		var apiReason *string
		if finish != "" {
			r := apiFinish(finish)
			apiReason = &r
		}
		if p.chat {
			ch := chatChoice{Index: i, Delta: &chatOutput{Role: role, Content: text}, FinishReason: apiReason, EngineFinishReason: string(finish)}
			if p.logprobs && len(steps) > 0 {
				ch.Logprobs = chatLogprobsOf(steps)
			}
			return chatCompletion{ID: id, Object: "chat.completion.chunk", Created: created, Model: p.model.ID, SystemFingerprint: fingerprint, Choices: []chatChoice{ch}}
		}
		ch := textChoice{Index: i, FinishReason: apiReason, EngineFinishReason: string(finish)}
		if text != nil {
			ch.Text = *text
		}
		if p.logprobs && len(steps) > 0 {
			ch.Logprobs = textLogprobsOf(steps, offset)
		}
		return textCompletion{ID: id, Object: "text_completion", Created: created, Model: p.model.ID, SystemFingerprint: fingerprint, Choices: []textChoice{ch}}
	}
	choices := make([]choice, 0, p.n)
	for i := range p.n {
		if p.chat {
			empty := ""
			if !send(chunk(i, &empty, "assistant", nil, 0, "")) {
				return
			}
		}
		var pending []decoding.Step // tokens whose text has not been sent
		offset := 0
		alive := true
		c, err := generate(ctx, p, i, func(s decoding.Step) bool {
			if s.ID != decoding.NoToken && s.Finish != decoding.FinishEOS {
				pending = append(pending, s)
			}
			if s.Text == "" {
				return true
			}
			text := s.Text
			alive = send(chunk(i, &text, "", pending, offset, ""))
			for _, t := range pending {
				offset += len(t.Piece)
			}
			pending = pending[:0]
			return alive
		})
		if !alive || ctx.Err() != nil {
			return
		}
		if err != nil {
			send(map[string]*apiError{"error": generationError(err)})
			return
		}
		// The last chunk: the finish reason, and the log-probabilities
		// of tokens that released no text (an end held back).
		var rest *string
		if !p.chat {
			rest = new(string)
		}
		if !send(chunk(i, rest, "", pending, offset, c.finish)) {
			return
		}
		choices = append(choices, c)
	}
	if p.includeUsage {
		u := totals(p, choices)
		if p.chat {
			send(chatCompletion{ID: id, Object: "chat.completion.chunk", Created: created, Model: p.model.ID, SystemFingerprint: fingerprint, Choices: []chatChoice{}, Usage: &u})
		} else {
			send(textCompletion{ID: id, Object: "text_completion", Created: created, Model: p.model.ID, SystemFingerprint: fingerprint, Choices: []textChoice{}, Usage: &u})
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}
