package serve

import "encoding/json"

// The wire types of the OpenAI API, as far as this server speaks it. Field
// names and shapes are the API's; a field the server does not know is
// ignored when it reads a request, as the API's own servers and
// llama-server do, so that clients which send extras keep working.

// chatRequest is the body of POST /v1/chat/completions. Fields whose JSON
// type varies (stop, a message's content) or whose presence matters
// (temperature's default is 1, not 0) are read in two steps: raw here,
// checked in request.go.
type chatRequest struct {
	Model               string        `json:"model"`
	Messages            []chatMessage `json:"messages"`
	MaxTokens           *int          `json:"max_tokens"`
	MaxCompletionTokens *int          `json:"max_completion_tokens"`
	sampling
	Logprobs    *bool `json:"logprobs"`
	TopLogprobs *int  `json:"top_logprobs"`

	ResponseFormat *responseFormat `json:"response_format"`
	Stream         bool            `json:"stream"`
	StreamOptions  *streamOptions  `json:"stream_options"`

	// What the API defines and this server cannot do: each is refused by
	// name when present (see unsupported).
	Tools             json.RawMessage `json:"tools"`
	ToolChoice        json.RawMessage `json:"tool_choice"`
	Functions         json.RawMessage `json:"functions"`
	FunctionCall      json.RawMessage `json:"function_call"`
	Audio             json.RawMessage `json:"audio"`
	Modalities        []string        `json:"modalities"`
	Prediction        json.RawMessage `json:"prediction"`
	WebSearchOptions  json.RawMessage `json:"web_search_options"`
	ParallelToolCalls json.RawMessage `json:"parallel_tool_calls"`
	Store             *bool           `json:"store"`
}

// completionRequest is the body of POST /v1/completions: a plain prompt.
type completionRequest struct {
	Model     string          `json:"model"`
	Prompt    json.RawMessage `json:"prompt"`
	MaxTokens *int            `json:"max_tokens"`
	sampling
	// Logprobs is the number of top tokens to return with each token,
	// 0 to 5 in the legacy API (0 still returns each token's own).
	Logprobs      *int           `json:"logprobs"`
	Stream        bool           `json:"stream"`
	StreamOptions *streamOptions `json:"stream_options"`

	Echo   *bool           `json:"echo"`
	Suffix json.RawMessage `json:"suffix"`
	BestOf *int            `json:"best_of"`
	Store  *bool           `json:"store"`
}

// sampling holds the settings both endpoints share, each a stage a lesson
// builds (see params.go).
type sampling struct {
	Temperature      *float64           `json:"temperature"`
	TopP             *float64           `json:"top_p"`
	N                *int               `json:"n"`
	Stop             json.RawMessage    `json:"stop"`
	Seed             *int64             `json:"seed"`
	PresencePenalty  *float64           `json:"presence_penalty"`
	FrequencyPenalty *float64           `json:"frequency_penalty"`
	LogitBias        map[string]float64 `json:"logit_bias"`

	// Extensions the engine has and the API lacks, under the names
	// llama-server, vLLM and Ollama accept.
	TopK              *int     `json:"top_k"`
	MinP              *float64 `json:"min_p"`
	RepetitionPenalty *float64 `json:"repetition_penalty"`
}

// chatMessage is one turn of a conversation. Content is a string, or a list
// of parts of which this server reads the text ones.
type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCalls  json.RawMessage `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

// contentPart is one part of a message's content.
type contentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// responseFormat asks for text, any JSON object, or JSON that a schema
// allows.
type responseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict *bool           `json:"strict"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatCompletion is the answer of a chat request that does not stream.
type chatCompletion struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"`
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	SystemFingerprint string       `json:"system_fingerprint"`
	Choices           []chatChoice `json:"choices"`
	Usage             *usage       `json:"usage,omitempty"`
}

type chatChoice struct {
	Index    int           `json:"index"`
	Message  *chatOutput   `json:"message,omitempty"`
	Delta    *chatOutput   `json:"delta,omitempty"`
	Logprobs *chatLogprobs `json:"logprobs"`
	// FinishReason is the API's: "stop" or "length", null in a chunk
	// before the last.
	FinishReason *string `json:"finish_reason"`
	// EngineFinishReason is the engine's own reason (decoding.FinishReason:
	// eos, stop, length, context, constraint…), which the API's two
	// values summarise.
	EngineFinishReason string `json:"engine_finish_reason,omitempty"`
}

type chatOutput struct {
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
	Refusal *string `json:"refusal,omitempty"`
}

// chatLogprobs is a choice's log-probabilities: one entry a token.
type chatLogprobs struct {
	Content []tokenLogprob `json:"content"`
}

// tokenLogprob is a token, its log-probability under the model's own
// distribution, its bytes, and the most likely tokens at its position.
type tokenLogprob struct {
	Token       string       `json:"token"`
	Logprob     float64      `json:"logprob"`
	Bytes       []int        `json:"bytes"`
	TopLogprobs []topLogprob `json:"top_logprobs"`
}

type topLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
	Bytes   []int   `json:"bytes"`
}

// textCompletion is the answer of /v1/completions, and its chunks.
type textCompletion struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"`
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	SystemFingerprint string       `json:"system_fingerprint"`
	Choices           []textChoice `json:"choices"`
	Usage             *usage       `json:"usage,omitempty"`
}

type textChoice struct {
	Index              int           `json:"index"`
	Text               string        `json:"text"`
	Logprobs           *textLogprobs `json:"logprobs"`
	FinishReason       *string       `json:"finish_reason"`
	EngineFinishReason string        `json:"engine_finish_reason,omitempty"`
}

// textLogprobs is the legacy API's shape: parallel lists, a token each.
type textLogprobs struct {
	Tokens        []string             `json:"tokens"`
	TokenLogprobs []float64            `json:"token_logprobs"`
	TopLogprobs   []map[string]float64 `json:"top_logprobs"`
	TextOffset    []int                `json:"text_offset"`
}

// usage counts the tokens of a request: the prompt's, once, and those
// generated over all its choices.
type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// modelList is the answer of GET /v1/models.
type modelList struct {
	Object string      `json:"object"`
	Data   []modelCard `json:"data"`
}

type modelCard struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
	// ContextLength is the model's context in tokens, as llama-server and
	// vLLM add it.
	ContextLength int `json:"context_length"`
}
