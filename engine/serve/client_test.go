package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

// TestOfficialGoClient drives the server with OpenAI's own Go library,
// which knows nothing of this server: what it reads back is the API's
// shape, or it would fail to decode it.
func TestOfficialGoClient(t *testing.T) {
	m := smolLM2(t)
	_, url := start(t, Config{Models: []*Model{m}, APIKey: "course-key"})
	client := openai.NewClient(option.WithBaseURL(url+"/v1"), option.WithAPIKey("course-key"), option.WithMaxRetries(0))
	ctx := context.Background()
	question := "What is the capital of France?"
	prompt, err := m.Tokenizer.ChatPrompt([]engine.Message{{Role: "user", Content: question}}, true)
	if err != nil {
		t.Fatal(err)
	}
	want, pieces, lps, _ := engineText(t, m, prompt, decoding.Options{MaxNewTokens: 32})
	params := openai.ChatCompletionNewParams{
		Model:       "smollm2",
		Messages:    []openai.ChatCompletionMessageParamUnion{openai.UserMessage(question)},
		Temperature: openai.Float(0),
		MaxTokens:   openai.Int(32),
	}

	t.Run("chat", func(t *testing.T) {
		p := params
		p.Logprobs, p.TopLogprobs = openai.Bool(true), openai.Int(3)
		got, err := client.Chat.Completions.New(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Choices) != 1 || got.Choices[0].Message.Content != want {
			t.Fatalf("choices %+v; decoding.Chat wrote %q", got.Choices, want)
		}
		content := got.Choices[0].Logprobs.Content
		if len(content) != len(pieces) {
			t.Fatalf("%d tokens of logprobs; the engine made %d", len(content), len(pieces))
		}
		for i, c := range content {
			if string(bytesFrom(c.Bytes)) != pieces[i] || c.Logprob != lps[i] || len(c.TopLogprobs) != 3 {
				t.Errorf("token %d: %q %v (%d top); engine: %q %v", i, c.Token, c.Logprob, len(c.TopLogprobs), pieces[i], lps[i])
			}
		}
		if got.Usage.PromptTokens == 0 || got.Usage.TotalTokens != got.Usage.PromptTokens+got.Usage.CompletionTokens {
			t.Errorf("usage %+v", got.Usage)
		}
	})

	t.Run("streamed", func(t *testing.T) {
		p := params
		p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
		stream := client.Chat.Completions.NewStreaming(ctx, p)
		var acc openai.ChatCompletionAccumulator
		chunks := 0
		for stream.Next() {
			acc.AddChunk(stream.Current())
			chunks++
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		if len(acc.Choices) != 1 || acc.Choices[0].Message.Content != want {
			t.Errorf("accumulated %+v; decoding.Chat wrote %q", acc.Choices, want)
		}
		if chunks < 3 || acc.Usage.CompletionTokens == 0 {
			t.Errorf("%d chunks, usage %+v", chunks, acc.Usage)
		}
	})

	t.Run("seed and n", func(t *testing.T) {
		p := params
		p.Temperature, p.Seed, p.N, p.Stop = openai.Float(1), openai.Int(11), openai.Int(2), openai.ChatCompletionNewParamsStopUnion{OfStringArray: []string{"\n\n"}}
		a, err := client.Chat.Completions.New(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		b, err := client.Chat.Completions.New(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Choices) != 2 || a.Choices[0].Message.Content != b.Choices[0].Message.Content || a.Choices[1].Message.Content != b.Choices[1].Message.Content {
			t.Errorf("the same seed: %+v, then %+v", a.Choices, b.Choices)
		}
		for _, c := range a.Choices {
			if strings.Contains(c.Message.Content, "\n\n") {
				t.Errorf("the stop string is in the answer %q", c.Message.Content)
			}
		}
	})

	t.Run("json schema", func(t *testing.T) {
		p := params
		p.MaxTokens = openai.Int(48)
		schema := map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"}}
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "city", Schema: schema, Strict: openai.Bool(true)},
		}}
		got, err := client.Chat.Completions.New(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			City *string `json:"city"`
		}
		if err := json.Unmarshal([]byte(got.Choices[0].Message.Content), &v); err != nil || v.City == nil {
			t.Errorf("the answer %q does not validate: %v", got.Choices[0].Message.Content, err)
		}
	})

	t.Run("an error", func(t *testing.T) {
		p := params
		p.TopP = openai.Float(1.5)
		_, err := client.Chat.Completions.New(ctx, p)
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || apiErr.Param != "top_p" || !strings.Contains(apiErr.Message, "top_p = 1.5") {
			t.Errorf("top_p 1.5: %v; want a 400 naming top_p", err)
		}
		bad := openai.NewClient(option.WithBaseURL(url+"/v1"), option.WithAPIKey("wrong"), option.WithMaxRetries(0))
		_, err = bad.Models.List(ctx)
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnauthorized {
			t.Errorf("a wrong key: %v; want 401", err)
		}
	})

	t.Run("models", func(t *testing.T) {
		page, err := client.Models.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Data) != 1 || page.Data[0].ID != "smollm2" {
			t.Errorf("models %+v", page.Data)
		}
	})
}

// bytesFrom turns the API's list of byte values back into bytes.
func bytesFrom(values []int64) []byte {
	b := make([]byte, len(values))
	for i, v := range values {
		b[i] = byte(v)
	}
	return b
}
