package experiment

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"io"
	"math"
	"net/http"
	"strings"
	"time"
)

// Lesson 15 sends the lessons' own requests to the course's API server
// (engine/serve) and looks at what comes back on the wire. These read it.

// Chunk is one Server-Sent Event of a streamed chat answer: when it
// arrived, the text it carries, and the log-probabilities of the tokens
// it covers (when the request asked for logprobs).
type Chunk struct {
	At     time.Duration // since the request was sent
	Text   string
	Tokens []ChunkToken
	Finish string // the API's finish_reason, on the last chunk
	Raw    string // the event's data, as sent
}

// ChunkToken is one token of a chunk: its text, its log-probability and
// the likeliest tokens at its position.
type ChunkToken struct {
	Token   string
	LogProb float64
	Top     []decoding.TokenLogProb // ID unset: the API sends text, not ids
}

// StreamChat posts a chat request (a JSON-able value with "stream": true)
// to baseURL's /chat/completions and reads its events to data: [DONE].
// An answer that is not a stream is returned as an error with its body.
func StreamChat(ctx context.Context, baseURL string, request any) ([]Chunk, error) {
	body, err := json.Marshal(request)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", baseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(data))
	}
	var chunks []Chunk
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			return chunks, nil
		}
		c, err := readChunk(data)
		if err != nil {
			return chunks, err
		}
		c.At = time.Since(start)
		chunks = append(chunks, c)
	}
	if err := sc.Err(); err != nil {
		return chunks, err
	}
	return chunks, fmt.Errorf("the stream ended without data: [DONE]")
}

// readChunk reads one chat.completion.chunk.
func readChunk(data string) (Chunk, error) {
	var event struct {
		Choices []struct {
			Delta struct {
				Content string `json:"content"`
			} `json:"delta"`
			Logprobs *struct {
				Content []struct {
					Token       string  `json:"token"`
					Logprob     float64 `json:"logprob"`
					TopLogprobs []struct {
						Token   string  `json:"token"`
						Logprob float64 `json:"logprob"`
					} `json:"top_logprobs"`
				} `json:"content"`
			} `json:"logprobs"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(data), &event); err != nil {
		return Chunk{}, fmt.Errorf("an event that is not JSON: %q: %w", data, err)
	}
	if event.Error != nil {
		return Chunk{}, fmt.Errorf("the server: %s", event.Error.Message)
	}
	c := Chunk{Raw: data}
	for _, ch := range event.Choices {
		c.Text += ch.Delta.Content
		if ch.FinishReason != nil {
			c.Finish = *ch.FinishReason
		}
		if ch.Logprobs == nil {
			continue
		}
		for _, t := range ch.Logprobs.Content {
			tok := ChunkToken{Token: t.Token, LogProb: t.Logprob}
			for _, top := range t.TopLogprobs {
				tok.Top = append(tok.Top, decoding.TokenLogProb{ID: -1, Text: top.Token, LogProb: top.Logprob})
			}
			c.Tokens = append(c.Tokens, tok)
		}
	}
	return c, nil
}

// Probabilities turns log-probabilities into probabilities, for a chart.
func Probabilities(top []decoding.TokenLogProb) (labels []string, probs []float64) {
	for _, t := range top {
		labels = append(labels, t.Text)
		probs = append(probs, math.Exp(t.LogProb))
	}
	return labels, probs
}

// PostJSON posts a request to baseURL+path and decodes the JSON answer
// into out, returning the HTTP status: an error answer (4xx) is decoded
// too, so that a lesson can show it.
func PostJSON(ctx context.Context, baseURL, path string, request, out any) (int, error) {
	body, err := json.Marshal(request)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", baseURL+path, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(out)
}
