package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/constrain"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/schedule"
)

// A request is read in three steps: the body, whole and bounded; its JSON,
// into the wire types; then every parameter, checked and turned into the
// engine's settings (a plan). Each step's refusal is a 4xx that names what
// was wrong, with its value.

// Limits on what one request may ask.
const (
	maxStops      = 4    // the API's own limit
	maxStopBytes  = 256  // bytes in one stop string
	maxTopLogprob = 20   // the API's own limit for chat
	maxLegacyTop  = 5    // and for /v1/completions
	maxMessages   = 1024 // turns in one conversation
)

// plan is a checked request: what to generate, how, and how to answer.
type plan struct {
	model        *Model
	sched        *schedule.Scheduler // runs the model's passes, batched; nil: each generation its own
	chat         bool
	prompt       string // the text the model continues: for chat, the conversation rendered by the model's template
	promptTokens int
	opts         decoding.Options
	n            int
	stream       bool
	includeUsage bool
	logprobs     bool // return each token's log-probability
	topLogprobs  int  // and this many of the likeliest tokens at each position
}

// readBody reads a request's body, at most limit bytes (413 past it), and
// checks that it is UTF-8: Go's JSON decoder would quietly turn invalid
// bytes into U+FFFD, and a prompt is not to be changed behind the client's
// back.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, *apiError) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, &apiError{Status: http.StatusRequestEntityTooLarge, Type: "invalid_request_error",
			Message: fmt.Sprintf("the request body is over the server's limit of %d bytes", limit)}
	case err != nil:
		return nil, badRequest("the request body could not be read: %v", err)
	}
	if !utf8.Valid(body) {
		return nil, badRequest("the request body is not valid UTF-8 (at byte %d)", firstInvalid(body))
	}
	return body, nil
}

// firstInvalid is the offset of the first byte of b that is not part of
// valid UTF-8.
func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// decodeJSON reads body into v, saying which parameter has the wrong type,
// or where the JSON breaks.
func decodeJSON(body []byte, v any) *apiError {
	if len(bytes.TrimSpace(body)) == 0 {
		return badRequest("the request body is empty: send a JSON object")
	}
	err := json.Unmarshal(body, v)
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typeErr) && typeErr.Field != "":
		// The shared settings are an embedded struct, which Go names in
		// the path; the API does not.
		param := strings.TrimPrefix(typeErr.Field, "sampling.")
		return badParam(param, "%s: the value %s does not fit; want %s", param, clip(typeErr.Value, 40), jsonKind(typeErr.Type.String()))
	case errors.As(err, &typeErr):
		return badRequest("the request body is %s; want a JSON object", clip(typeErr.Value, 40))
	case errors.As(err, &syntaxErr):
		return badRequest("the request body is not JSON: %v (at byte %d)", syntaxErr, syntaxErr.Offset)
	}
	return badRequest("the request body is not JSON: %v", err)
}

// jsonKind says in JSON's words what a Go type holds.
func jsonKind(goType string) string {
	goType = strings.TrimPrefix(goType, "*")
	switch {
	case goType == "int" || goType == "int64":
		return "a whole number that fits in 64 bits"
	case goType == "float64":
		return "a number"
	case goType == "bool":
		return "true or false"
	case goType == "string":
		return "a string"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map["):
		return "an object"
	}
	return "an object"
}

// clip shortens a value quoted in an error.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// unsupported is a field the API defines that this server cannot honour,
// whether the request sent it, and why it cannot be.
type unsupported struct {
	name    string
	present bool
	why     string
}

// refuse returns a 400 for the first field the request sent that this
// server cannot honour, or nil: such a field is never dropped in silence,
// since a client that asked for a tool call and got plain text would be
// misled.
func refuse(fields ...unsupported) *apiError {
	for _, f := range fields {
		if f.present {
			return badParam(f.name, "%s is not supported: %s", f.name, f.why)
		}
	}
	return nil
}

// given reports whether a raw field was sent with a value other than null.
func given(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// chatPlan checks a chat request.
func (s *Server) chatPlan(req *chatRequest) (*plan, *apiError) {
	if e := refuse(
		unsupported{"tools", given(req.Tools), "this server generates text, and calls no tools"},
		unsupported{"tool_choice", given(req.ToolChoice), "this server calls no tools"},
		unsupported{"functions", given(req.Functions), "this server calls no functions"},
		unsupported{"function_call", given(req.FunctionCall), "this server calls no functions"},
		unsupported{"parallel_tool_calls", given(req.ParallelToolCalls), "this server calls no tools"},
		unsupported{"audio", given(req.Audio), "the models here read and write text only"},
		unsupported{"modalities", len(req.Modalities) > 0 && !(len(req.Modalities) == 1 && req.Modalities[0] == "text"), "the models here read and write text only"},
		unsupported{"prediction", given(req.Prediction), "predicted outputs are not implemented"},
		unsupported{"web_search_options", given(req.WebSearchOptions), "this server does not search the web"},
		unsupported{"store", req.Store != nil && *req.Store, "this server keeps no completions"},
	); e != nil {
		return nil, e
	}
	m, e := s.model(req.Model)
	if e != nil {
		return nil, e
	}
	messages, e := readMessages(req.Messages)
	if e != nil {
		return nil, e
	}
	p, e := newPlan(m, true, req.Stream, req.StreamOptions)
	if e != nil {
		return nil, e
	}
	maxTokens := req.MaxCompletionTokens
	name := "max_completion_tokens"
	if maxTokens == nil {
		maxTokens, name = req.MaxTokens, "max_tokens"
	}
	if e := p.sample(req.sampling, maxTokens, name, s.cfg.DefaultMaxTokens); e != nil {
		return nil, e
	}
	if req.Logprobs != nil && *req.Logprobs {
		p.logprobs = true
	}
	if req.TopLogprobs != nil {
		k := *req.TopLogprobs
		switch {
		case k < 0 || k > maxTopLogprob:
			return nil, badParam("top_logprobs", "top_logprobs = %d: want a whole number from 0 to %d", k, maxTopLogprob)
		case k > 0 && !p.logprobs:
			return nil, badParam("top_logprobs", "top_logprobs = %d needs logprobs set to true", k)
		}
		p.topLogprobs = k
	}
	if e := p.format(req.ResponseFormat); e != nil {
		return nil, e
	}
	prompt, err := m.Tokenizer.ChatPrompt(messages, true)
	if err != nil {
		return nil, badParam("messages", "the conversation cannot be rendered with model %s's chat template: %v", m.ID, err)
	}
	p.prompt = prompt
	return p, p.count()
}

// completionPlan checks a plain-prompt request.
func (s *Server) completionPlan(req *completionRequest) (*plan, *apiError) {
	if e := refuse(
		unsupported{"echo", req.Echo != nil && *req.Echo, "the answer holds the new text only"},
		unsupported{"suffix", given(req.Suffix), "this server does not fill in the middle of a text"},
		unsupported{"best_of", req.BestOf != nil && *req.BestOf > 1, "ask for n completions instead"},
		unsupported{"store", req.Store != nil && *req.Store, "this server keeps no completions"},
	); e != nil {
		return nil, e
	}
	m, e := s.model(req.Model)
	if e != nil {
		return nil, e
	}
	prompt, e := readPrompt(req.Prompt)
	if e != nil {
		return nil, e
	}
	p, e := newPlan(m, false, req.Stream, req.StreamOptions)
	if e != nil {
		return nil, e
	}
	p.prompt = prompt
	if e := p.sample(req.sampling, req.MaxTokens, "max_tokens", s.cfg.DefaultMaxTokens); e != nil {
		return nil, e
	}
	if req.Logprobs != nil {
		k := *req.Logprobs
		if k < 0 || k > maxLegacyTop {
			return nil, badParam("logprobs", "logprobs = %d: want a whole number from 0 to %d", k, maxLegacyTop)
		}
		p.logprobs, p.topLogprobs = true, k
	}
	return p, p.count()
}

// newPlan starts a plan for a model, streamed or not.
func newPlan(m *Model, chat, stream bool, opts *streamOptions) (*plan, *apiError) {
	p := &plan{model: m, chat: chat, stream: stream}
	if opts != nil {
		if !stream {
			return nil, badParam("stream_options", "stream_options is only allowed when stream is true")
		}
		p.includeUsage = opts.IncludeUsage
	}
	return p, nil
}

// model finds the model a request names among the server's.
func (s *Server) model(id string) (*Model, *apiError) {
	if id == "" {
		return nil, badParam("model", "model is missing: name one of %s", strings.Join(s.ids(), ", "))
	}
	for _, m := range s.models {
		if m.ID == id {
			return m, nil
		}
	}
	e := &apiError{Status: http.StatusNotFound, Type: "invalid_request_error",
		Message: fmt.Sprintf("the model %q is not served here; the models are %s", clip(id, 80), strings.Join(s.ids(), ", "))}
	param := "model"
	e.Param = &param
	return nil, e.withCode("model_not_found")
}

// readMessages turns the API's messages into the engine's.
func readMessages(in []chatMessage) ([]engine.Message, *apiError) {
	if len(in) == 0 {
		return nil, badParam("messages", "messages is empty: send at least one message")
	}
	if len(in) > maxMessages {
		return nil, badParam("messages", "%d messages is over the limit of %d", len(in), maxMessages)
	}
	out := make([]engine.Message, len(in))
	for i, m := range in {
		at := fmt.Sprintf("messages[%d]", i)
		role := m.Role
		switch role {
		case "system", "user", "assistant":
		case "developer":
			role = "system" // the API's newer name for the system message
		case "tool", "function":
			return nil, badParam(at+".role", "%s.role = %q is not supported: this server calls no tools", at, m.Role)
		case "":
			return nil, badParam(at+".role", "%s.role is missing: want system, user or assistant", at)
		default:
			return nil, badParam(at+".role", "%s.role = %q: want system, user or assistant", at, clip(m.Role, 40))
		}
		if given(m.ToolCalls) {
			return nil, badParam(at+".tool_calls", "%s.tool_calls is not supported: this server calls no tools", at)
		}
		text, e := readContent(m.Content, at+".content")
		if e != nil {
			return nil, e
		}
		out[i] = engine.Message{Role: role, Content: text}
	}
	return out, nil
}

// readContent reads a message's content: a string, or a list of parts of
// which every one is text.
func readContent(raw json.RawMessage, at string) (string, *apiError) {
	if !given(raw) {
		return "", badParam(at, "%s is missing: want a string or a list of text parts", at)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []contentPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", badParam(at, "%s: want a string or a list of text parts", at)
	}
	var b strings.Builder
	for j, part := range parts {
		if part.Type != "text" {
			where := fmt.Sprintf("%s[%d].type", at, j)
			return "", badParam(where, "%s = %q is not supported: the models here read text only", where, clip(part.Type, 40))
		}
		b.WriteString(part.Text)
	}
	return b.String(), nil
}

// readPrompt reads /v1/completions' prompt: a string, or a list of one.
func readPrompt(raw json.RawMessage) (string, *apiError) {
	if !given(raw) {
		return "", badParam("prompt", "prompt is missing: want a string")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err == nil {
		if len(list) == 1 {
			return list[0], nil
		}
		return "", badParam("prompt", "prompt is a list of %d strings: this server takes one prompt a request", len(list))
	}
	return "", badParam("prompt", "prompt: want a string (lists of token ids are not supported)")
}

// readStop reads stop: a string or a list of at most maxStops.
func readStop(raw json.RawMessage) ([]string, *apiError) {
	if !given(raw) {
		return nil, nil
	}
	var one string
	var list []string
	if json.Unmarshal(raw, &one) == nil {
		list = []string{one}
	} else if err := json.Unmarshal(raw, &list); err != nil {
		return nil, badParam("stop", "stop: want a string or a list of up to %d strings", maxStops)
	}
	if len(list) > maxStops {
		return nil, badParam("stop", "stop has %d strings: at most %d", len(list), maxStops)
	}
	for i, s := range list {
		switch {
		case s == "":
			return nil, badParam("stop", "stop[%d] is empty: a stop string needs at least one character", i)
		case len(s) > maxStopBytes:
			return nil, badParam("stop", "stop[%d] has %d bytes: at most %d", i, len(s), maxStopBytes)
		}
	}
	return list, nil
}

// sample checks the sampling parameters and sets the engine's options from
// them: each is a stage of the sampler a lesson builds (see the table in
// the package documentation).
func (p *plan) sample(in sampling, maxTokens *int, maxName string, defaultMax int) *apiError {
	c := p.model.Model.Config
	o := &p.opts
	o.MaxNewTokens = defaultMax
	if maxTokens != nil {
		if *maxTokens < 1 {
			return badParam(maxName, "%s = %d: want at least 1", maxName, *maxTokens)
		}
		o.MaxNewTokens = *maxTokens
	}
	// The API's default temperature is 1: sampling from the model's own
	// distribution. 0 is greedy decoding.
	o.Temperature = 1
	if in.Temperature != nil {
		t := *in.Temperature
		if t < 0 || t > 2 {
			return badParam("temperature", "temperature = %v: want a number from 0 to 2", t)
		}
		o.Temperature = t
		if t < decoding.MinTemperature {
			o.Temperature = 0
		}
	}
	if in.TopP != nil {
		if v := *in.TopP; v <= 0 || v > 1 {
			return badParam("top_p", "top_p = %v: want a number above 0 and at most 1", v)
		}
		o.TopP = *in.TopP
	}
	p.n = 1
	if in.N != nil {
		if v := *in.N; v < 1 || v > maxN {
			return badParam("n", "n = %d: want a whole number from 1 to %d", v, maxN)
		}
		p.n = *in.N
	}
	stop, e := readStop(in.Stop)
	if e != nil {
		return e
	}
	o.Stop = stop
	if in.Seed != nil {
		o.Seed = uint64(*in.Seed)
	} else {
		o.Seed = randomSeed()
	}
	for _, pen := range []struct {
		name string
		v    *float64
		dst  *float64
	}{{"presence_penalty", in.PresencePenalty, &o.PresencePenalty}, {"frequency_penalty", in.FrequencyPenalty, &o.FrequencyPenalty}} {
		if pen.v != nil {
			if *pen.v < -2 || *pen.v > 2 {
				return badParam(pen.name, "%s = %v: want a number from -2 to 2", pen.name, *pen.v)
			}
			*pen.dst = *pen.v
		}
	}
	if len(in.LogitBias) > 0 {
		if len(in.LogitBias) > c.VocabSize {
			return badParam("logit_bias", "logit_bias has %d entries, more than the vocabulary's %d tokens", len(in.LogitBias), c.VocabSize)
		}
		o.LogitBias = make(map[int]float32, len(in.LogitBias))
		for key, bias := range in.LogitBias {
			id, err := strconv.Atoi(key)
			if err != nil || id < 0 || id >= c.VocabSize {
				return badParam("logit_bias", "logit_bias: %q is not a token id of model %s (0 to %d)", clip(key, 40), p.model.ID, c.VocabSize-1)
			}
			if bias < -100 || bias > 100 {
				return badParam("logit_bias", "logit_bias[%s] = %v: want a number from -100 to 100", key, bias)
			}
			// -100 bans the token, as the API says it should.
			o.LogitBias[id] = float32(bias)
			if bias == -100 {
				o.LogitBias[id] = float32(math.Inf(-1))
			}
		}
	}
	if in.TopK != nil {
		if v := *in.TopK; v < 0 || v > c.VocabSize {
			return badParam("top_k", "top_k = %d: want a whole number from 0 (off) to the vocabulary's %d", v, c.VocabSize)
		}
		o.TopK = *in.TopK
	}
	if in.MinP != nil {
		if v := *in.MinP; v < 0 || v > 1 {
			return badParam("min_p", "min_p = %v: want a number from 0 to 1", v)
		}
		o.MinP = *in.MinP
	}
	if in.RepetitionPenalty != nil {
		v := *in.RepetitionPenalty
		if v != 1 && (v < decoding.MinRepetitionPenalty || v > decoding.MaxRepetitionPenalty) {
			return badParam("repetition_penalty", "repetition_penalty = %v: want a number from %v to %v (1 is off)", v, decoding.MinRepetitionPenalty, decoding.MaxRepetitionPenalty)
		}
		if v != 1 {
			o.RepetitionPenalty = v
		}
	}
	// Anything the checks above let through that the engine still
	// refuses is named with the engine's own words.
	var se *decoding.SettingError
	if err := o.Validate(c.VocabSize); errors.As(err, &se) {
		return badParam(apiName(se.Setting), "%v", se)
	} else if err != nil {
		return badRequest("%v", err)
	}
	return nil
}

// apiName is the request parameter behind an engine setting.
func apiName(setting string) string {
	name, _, _ := strings.Cut(setting, "[")
	switch name {
	case "MaxNewTokens":
		return "max_tokens"
	case "Temperature":
		return "temperature"
	case "TopP":
		return "top_p"
	case "TopK":
		return "top_k"
	case "MinP":
		return "min_p"
	case "Stop":
		return "stop"
	case "PresencePenalty":
		return "presence_penalty"
	case "FrequencyPenalty":
		return "frequency_penalty"
	case "RepetitionPenalty":
		return "repetition_penalty"
	case "LogitBias":
		return "logit_bias"
	}
	return setting
}

// format compiles response_format with lesson 14's constraint stage: the
// answer is then a JSON object, or JSON that the schema allows.
func (p *plan) format(f *responseFormat) *apiError {
	if f == nil {
		return nil
	}
	var schema []byte
	switch f.Type {
	case "", "text":
		return nil
	case "json_object":
		schema = []byte(`{"type": "object"}`)
	case "json_schema":
		if f.JSONSchema == nil || !given(f.JSONSchema.Schema) {
			return badParam("response_format.json_schema.schema", "response_format of type json_schema needs json_schema.schema, a JSON Schema")
		}
		schema = f.JSONSchema.Schema
	default:
		return badParam("response_format.type", "response_format.type = %q: want text, json_object or json_schema", clip(f.Type, 40))
	}
	g, err := constrain.JSONSchema(schema)
	if err != nil {
		return badParam("response_format", "the JSON Schema cannot be used: %v", err)
	}
	c, err := p.model.constraint(string(schema), g)
	if err != nil {
		return badParam("response_format", "the JSON Schema cannot be used with model %s: %v", p.model.ID, err)
	}
	p.opts.Constraint = c
	return nil
}

// count encodes the prompt: its tokens are the usage's prompt_tokens, and
// a prompt that leaves no room to generate is refused as the API refuses
// one, context_length_exceeded.
func (p *plan) count() *apiError {
	ids, err := p.model.Tokenizer.Encode(p.prompt, true, false)
	if err != nil {
		return badParam("prompt", "the prompt cannot be encoded: %v", err)
	}
	p.promptTokens = len(ids)
	if ctx := p.model.Model.Config.SeqLen; len(ids) >= ctx {
		param := "messages"
		if !p.chat {
			param = "prompt"
		}
		return badParam(param, "the prompt is %d tokens, and model %s's context is %d: no room to generate", len(ids), p.model.ID, ctx).withCode("context_length_exceeded")
	}
	return nil
}
