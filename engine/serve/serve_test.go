package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/engine/schedule"
	"github.com/tokenbytoken/course/kernel/cmddoc"
)

// The server is checked against the engine it wraps: what it answers must
// be what decoding.Generate gives for the same prompt and settings.

var (
	defaultOnce  sync.Once
	defaultModel *Model
	defaultErr   error
	smolOnce     sync.Once
	smolModel    *Model
	smolErr      error
)

// builtIn is the engine's built-in model, as the server names it.
func builtIn(t *testing.T) *Model {
	t.Helper()
	defaultOnce.Do(func() {
		m, tok, err := models.Default()
		defaultModel, defaultErr = &Model{ID: "default", Model: m, Tokenizer: tok}, err
	})
	if defaultErr != nil {
		t.Fatal(defaultErr)
	}
	return defaultModel
}

// smolLM2 is SmolLM2-135M-Instruct, which has a chat template.
func smolLM2(t *testing.T) *Model {
	t.Helper()
	testmodel.Path(t, testmodel.SmolLM2)
	smolOnce.Do(func() {
		m, tok, err := models.SmolLM2()
		smolModel, smolErr = &Model{ID: "smollm2", Model: m, Tokenizer: tok}, err
	})
	if smolErr != nil {
		t.Fatal(smolErr)
	}
	return smolModel
}

// start serves the models on a loopback port for the test.
func start(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		ts.Close()
		s.Stop()
	})
	return s, ts.URL
}

// post sends a JSON body and returns the status and the decoded answer.
func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	data, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("POST %s %s: status %d, body %q is not JSON: %v", url, clip(body, 200), resp.StatusCode, data, err)
	}
	return resp.StatusCode, out
}

// engineText is what decoding.Generate writes for the prompt and options,
// with each token's piece and log-probability. With batched, the passes
// run through a scheduler of their own, as the server's batched passes
// do: for SmolLM2 that changes no number, for the course's float32 model
// the batched product sums in another order than a decoding step's.
func engineText(t *testing.T, m *Model, prompt string, opts decoding.Options, batched ...bool) (text string, pieces []string, logprobs []float64, finish decoding.FinishReason) {
	t.Helper()
	if len(batched) > 0 && batched[0] {
		shared, done := ownScheduler(t, m, schedule.Config{})
		defer done()
		opts.Decoder = shared
	}
	for step, err := range decoding.Generate(context.Background(), m.Model, m.Tokenizer, prompt, opts) {
		if err != nil {
			t.Fatal(err)
		}
		text += step.Text
		if step.ID != decoding.NoToken && step.Finish != decoding.FinishEOS {
			pieces = append(pieces, step.Piece)
			logprobs = append(logprobs, step.LogProb)
		}
		if step.Finish != "" {
			finish = step.Finish
		}
	}
	return text, pieces, logprobs, finish
}

// TestCompletionIsGenerate: a greedy completion through the API is
// decoding.Generate's, token for token, with the same log-probabilities:
// through a scheduler as the server's own passes are batched, or on
// their own when they are not.
func TestCompletionIsGenerate(t *testing.T) {
	m := builtIn(t)
	for _, unbatched := range []bool{false, true} {
		t.Run(fmt.Sprintf("unbatched=%v", unbatched), func(t *testing.T) { completionIsGenerate(t, m, unbatched) })
	}
}

func completionIsGenerate(t *testing.T, m *Model, unbatched bool) {
	_, url := start(t, Config{Models: []*Model{m}, Unbatched: unbatched})
	for _, prompt := range []string{"func main() {", "package ", "// Copyright"} {
		status, out := post(t, url+"/v1/completions", fmt.Sprintf(`{"model": "default", "prompt": %q, "temperature": 0, "max_tokens": 24, "logprobs": 3}`, prompt))
		if status != http.StatusOK {
			t.Fatalf("status %d: %v", status, out)
		}
		want, pieces, lps, finish := engineText(t, m, prompt, decoding.Options{MaxNewTokens: 24}, !unbatched)
		choice := out["choices"].([]any)[0].(map[string]any)
		if got := choice["text"].(string); got != want {
			t.Errorf("prompt %q: text %q; decoding.Generate wrote %q", prompt, got, want)
		}
		if got := choice["engine_finish_reason"]; got != string(finish) {
			t.Errorf("prompt %q: engine_finish_reason %v; want %s", prompt, got, finish)
		}
		lp := choice["logprobs"].(map[string]any)
		tokens, values := lp["tokens"].([]any), lp["token_logprobs"].([]any)
		if len(tokens) != len(pieces) {
			t.Fatalf("prompt %q: %d tokens in logprobs; decoding.Generate made %d", prompt, len(tokens), len(pieces))
		}
		for i := range pieces {
			if tokens[i] != pieces[i] || math.Abs(values[i].(float64)-lps[i]) > 1e-9 {
				t.Errorf("prompt %q, token %d: %q %v; engine: %q %v", prompt, i, tokens[i], values[i], pieces[i], lps[i])
			}
			if top := lp["top_logprobs"].([]any)[i].(map[string]any); len(top) == 0 || len(top) > 3 {
				t.Errorf("prompt %q, token %d: %d top log-probabilities; want 1 to 3", prompt, i, len(top))
			}
		}
		u := out["usage"].(map[string]any)
		if u["total_tokens"].(float64) != u["prompt_tokens"].(float64)+u["completion_tokens"].(float64) || u["completion_tokens"].(float64) < 1 {
			t.Errorf("usage %v does not add up", u)
		}
	}
}

// TestChat: SmolLM2's answer to a conversation through the API is
// decoding.Chat's; streamed, the chunks' text joins to the same answer; the
// same seed gives the same sampled text; a JSON Schema's answer parses.
func TestChat(t *testing.T) {
	m := smolLM2(t)
	_, url := start(t, Config{Models: []*Model{m}})
	messages := []engine.Message{{Role: "system", Content: "You are brief."}, {Role: "user", Content: "Name three fruits."}}
	msgJSON, _ := json.Marshal(messages)
	prompt, err := m.Tokenizer.ChatPrompt(messages, true)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _, _ := engineText(t, m, prompt, decoding.Options{MaxNewTokens: 40})

	t.Run("greedy", func(t *testing.T) {
		status, out := post(t, url+"/v1/chat/completions", fmt.Sprintf(`{"model": "smollm2", "messages": %s, "temperature": 0, "max_tokens": 40, "logprobs": true, "top_logprobs": 2}`, msgJSON))
		if status != http.StatusOK {
			t.Fatalf("status %d: %v", status, out)
		}
		choice := out["choices"].([]any)[0].(map[string]any)
		msg := choice["message"].(map[string]any)
		if msg["content"] != want || msg["role"] != "assistant" {
			t.Errorf("message %v; decoding.Chat wrote %q", msg, want)
		}
		content := choice["logprobs"].(map[string]any)["content"].([]any)
		var joined strings.Builder
		for _, c := range content {
			entry := c.(map[string]any)
			for _, b := range entry["bytes"].([]any) {
				joined.WriteByte(byte(b.(float64)))
			}
			if n := len(entry["top_logprobs"].([]any)); n != 2 {
				t.Errorf("%d top_logprobs; want 2", n)
			}
		}
		if joined.String() != want {
			t.Errorf("the logprobs' bytes join to %q; the answer is %q", joined.String(), want)
		}
	})

	t.Run("streamed", func(t *testing.T) {
		chunks := streamChunks(t, url+"/v1/chat/completions", fmt.Sprintf(`{"model": "smollm2", "messages": %s, "temperature": 0, "max_tokens": 40, "stream": true, "stream_options": {"include_usage": true}}`, msgJSON))
		var text strings.Builder
		var finish any
		var usageSeen bool
		for _, c := range chunks {
			if c["object"] != "chat.completion.chunk" {
				t.Errorf("chunk object %v", c["object"])
			}
			for _, ch := range c["choices"].([]any) {
				choice := ch.(map[string]any)
				if d, ok := choice["delta"].(map[string]any); ok {
					if s, ok := d["content"].(string); ok {
						text.WriteString(s)
					}
				}
				if choice["finish_reason"] != nil {
					finish = choice["finish_reason"]
				}
			}
			if c["usage"] != nil {
				usageSeen = true
			}
		}
		if text.String() != want {
			t.Errorf("streamed text %q; decoding.Chat wrote %q", text.String(), want)
		}
		if finish != "stop" && finish != "length" {
			t.Errorf("finish_reason %v", finish)
		}
		if !usageSeen {
			t.Error("no chunk with usage, though include_usage was set")
		}
	})

	t.Run("seed", func(t *testing.T) {
		body := fmt.Sprintf(`{"model": "smollm2", "messages": %s, "temperature": 1.2, "max_tokens": 30, "seed": 42, "n": 2}`, msgJSON)
		_, a := post(t, url+"/v1/chat/completions", body)
		_, b := post(t, url+"/v1/chat/completions", body)
		texts := func(out map[string]any) []string {
			var s []string
			for _, c := range out["choices"].([]any) {
				s = append(s, c.(map[string]any)["message"].(map[string]any)["content"].(string))
			}
			return s
		}
		ta, tb := texts(a), texts(b)
		if len(ta) != 2 || fmt.Sprint(ta) != fmt.Sprint(tb) {
			t.Errorf("the same seed gave %q, then %q", ta, tb)
		}
	})

	t.Run("json schema", func(t *testing.T) {
		schema := `{"type": "object", "properties": {"fruits": {"type": "array", "items": {"type": "string"}}}, "required": ["fruits"]}`
		status, out := post(t, url+"/v1/chat/completions", fmt.Sprintf(`{"model": "smollm2", "messages": %s, "temperature": 0, "max_tokens": 60, "response_format": {"type": "json_schema", "json_schema": {"name": "fruits", "schema": %s}}}`, msgJSON, schema))
		if status != http.StatusOK {
			t.Fatalf("status %d: %v", status, out)
		}
		content := out["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
		var v struct {
			Fruits []string `json:"fruits"`
		}
		if err := json.Unmarshal([]byte(content), &v); err != nil || v.Fruits == nil {
			t.Errorf("the answer %q is not an object with a list of fruits: %v", content, err)
		}
	})

	t.Run("stop", func(t *testing.T) {
		if len(want) < 4 {
			t.Skip("the greedy answer is too short to stop in")
		}
		stop := want[2:4]
		_, out := post(t, url+"/v1/chat/completions", fmt.Sprintf(`{"model": "smollm2", "messages": %s, "temperature": 0, "max_tokens": 40, "stop": [%q]}`, msgJSON, stop))
		choice := out["choices"].([]any)[0].(map[string]any)
		if got := choice["message"].(map[string]any)["content"]; got != want[:strings.Index(want, stop)] || choice["finish_reason"] != "stop" {
			t.Errorf("stop %q: %v, %v; want %q, stop", stop, got, choice["finish_reason"], want[:strings.Index(want, stop)])
		}
	})
}

// streamChunks reads a Server-Sent Events answer to its [DONE].
func streamChunks(t *testing.T, url, body string) []map[string]any {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		data, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d, content type %q: %s", resp.StatusCode, ct, data)
	}
	var chunks []map[string]any
	sc := bufio.NewScanner(resp.Body)
	done := false
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("a line of the stream that is not an event: %q", line)
		}
		if data == "[DONE]" {
			done = true
			break
		}
		var c map[string]any
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("event %q is not JSON: %v", data, err)
		}
		chunks = append(chunks, c)
	}
	if !done {
		t.Fatal("the stream ended without data: [DONE]")
	}
	return chunks
}

// TestHostileRequests: each bad body gets a 4xx that names the problem,
// in the API's error shape, and the server keeps serving.
func TestHostileRequests(t *testing.T) {
	m := builtIn(t)
	_, url := start(t, Config{Models: []*Model{m}, MaxBodyBytes: 64 << 10})
	manyStops := `["` + strings.Repeat(`a", "`, 9999) + `a"]`
	for _, c := range []struct {
		name, path, body string
		status           int
		param, says      string
	}{
		{"malformed JSON", "/v1/completions", `{"model": "default", "prompt": "x"`, 400, "", "not JSON"},
		{"not an object", "/v1/completions", `[1, 2]`, 400, "", "want a JSON object"},
		{"empty body", "/v1/completions", ``, 400, "", "empty"},
		{"a string temperature", "/v1/completions", `{"model": "default", "prompt": "x", "temperature": "hot"}`, 400, "temperature", "want a number"},
		{"a huge max_tokens", "/v1/completions", `{"model": "default", "prompt": "x", "max_tokens": 1e30}`, 400, "max_tokens", "does not fit"},
		{"NaN", "/v1/completions", `{"model": "default", "prompt": "x", "temperature": NaN}`, 400, "", "not JSON"},
		{"invalid UTF-8", "/v1/completions", "{\"model\": \"default\", \"prompt\": \"\xff\xfe\"}", 400, "", "not valid UTF-8"},
		{"10,000 stop strings", "/v1/completions", `{"model": "default", "prompt": "x", "stop": ` + manyStops + `}`, 400, "stop", "at most 4"},
		{"n: 10000", "/v1/completions", `{"model": "default", "prompt": "x", "n": 10000}`, 400, "n", "n = 10000"},
		{"max_tokens: -1", "/v1/completions", `{"model": "default", "prompt": "x", "max_tokens": -1}`, 400, "max_tokens", "max_tokens = -1"},
		{"temperature 3", "/v1/completions", `{"model": "default", "prompt": "x", "temperature": 3}`, 400, "temperature", "temperature = 3"},
		{"top_p 0", "/v1/completions", `{"model": "default", "prompt": "x", "top_p": 0}`, 400, "top_p", "top_p = 0"},
		{"a logit_bias id outside the vocabulary", "/v1/completions", `{"model": "default", "prompt": "x", "logit_bias": {"999999": 5}}`, 400, "logit_bias", "not a token id"},
		{"no model", "/v1/completions", `{"prompt": "x"}`, 400, "model", "model is missing"},
		{"an unknown model", "/v1/completions", `{"model": "gpt-5", "prompt": "x"}`, 404, "model", "not served here"},
		{"empty messages", "/v1/chat/completions", `{"model": "default", "messages": []}`, 400, "messages", "messages is empty"},
		{"a role it does not know", "/v1/chat/completions", `{"model": "default", "messages": [{"role": "wizard", "content": "x"}]}`, 400, "messages[0].role", "want system, user or assistant"},
		{"an image", "/v1/chat/completions", `{"model": "default", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]}`, 400, "messages[0].content[0].type", "not supported"},
		{"tools", "/v1/chat/completions", `{"model": "default", "messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function"}]}`, 400, "tools", "tools is not supported"},
		{"audio", "/v1/chat/completions", `{"model": "default", "messages": [{"role": "user", "content": "x"}], "audio": {"voice": "x"}}`, 400, "audio", "not supported"},
		{"top_logprobs without logprobs", "/v1/chat/completions", `{"model": "default", "messages": [{"role": "user", "content": "x"}], "top_logprobs": 3}`, 400, "top_logprobs", "needs logprobs"},
		{"a chat template the model lacks", "/v1/chat/completions", `{"model": "default", "messages": [{"role": "user", "content": "x"}]}`, 400, "messages", "chat template"},
		{"a response format it does not know", "/v1/completions", `{"model": "default", "prompt": "x", "echo": true}`, 400, "echo", "not supported"},
		{"a prompt longer than the context", "/v1/completions", `{"model": "default", "prompt": "` + strings.Repeat("func main() { ", 3000) + `"}`, 400, "prompt", "no room to generate"},
		{"a body over the limit", "/v1/completions", `{"model": "default", "prompt": "` + strings.Repeat("x", 70<<10) + `"}`, 413, "", "over the server's limit"},
		{"no such endpoint", "/v1/embeddings", `{}`, 404, "", "no endpoint"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, out := post(t, url+c.path, c.body)
			e, ok := out["error"].(map[string]any)
			if status != c.status || !ok {
				t.Fatalf("status %d, %v; want %d and an error", status, out, c.status)
			}
			if msg, _ := e["message"].(string); !strings.Contains(msg, c.says) {
				t.Errorf("message %q; want it to say %q", msg, c.says)
			}
			if c.param != "" && e["param"] != c.param {
				t.Errorf("param %v; want %q", e["param"], c.param)
			}
			if _, ok := e["type"].(string); !ok {
				t.Errorf("error %v has no type", e)
			}
		})
	}
	if status, out := post(t, url+"/v1/completions", `{"model": "default", "prompt": "x", "max_tokens": 2, "some_extension": {"ignored": true}}`); status != http.StatusOK {
		t.Errorf("after the hostile requests, a good one (with a field the API does not define): status %d, %v", status, out)
	}
	if status, out := post(t, url+"/v1/completions", `{"model": "default", "prompt": "x", "max_tokens": 2, "temperature": 0, "top_k": 5, "min_p": 0.1, "repetition_penalty": 1.1, "presence_penalty": 0.5, "frequency_penalty": 0.5, "logit_bias": {"3": -100}, "seed": 7}`); status != http.StatusOK {
		t.Errorf("every sampling parameter at once: status %d, %v", status, out)
	}
}

// TestAPIKey: with a key, a request without it, or with another, gets
// 401; with it, an answer.
func TestAPIKey(t *testing.T) {
	_, url := start(t, Config{Models: []*Model{builtIn(t)}, APIKey: "sesame"})
	for _, c := range []struct {
		header string
		status int
	}{{"", 401}, {"Bearer open", 401}, {"sesame", 401}, {"Bearer sesame", 200}} {
		req, _ := http.NewRequest("GET", url+"/v1/models", nil)
		if c.header != "" {
			req.Header.Set("Authorization", c.header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("Authorization %q: status %d; want %d", c.header, resp.StatusCode, c.status)
		}
	}
}

// TestModels lists the served models.
func TestModels(t *testing.T) {
	_, url := start(t, Config{Models: []*Model{builtIn(t)}})
	resp, err := http.Get(url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list modelList
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	if list.Object != "list" || len(list.Data) != 1 || list.Data[0].ID != "default" || list.Data[0].ContextLength != builtIn(t).Model.Config.SeqLen {
		t.Errorf("models %+v", list)
	}
	if resp, err := http.Get(url + "/health"); err != nil || resp.StatusCode != 200 {
		t.Errorf("health: %v %v", resp, err)
	}
}

// TestQueue: past the running generations and the queue, a request gets
// 429 with Retry-After at once; one that waited runs once a slot frees.
func TestQueue(t *testing.T) {
	s, url := start(t, Config{Models: []*Model{builtIn(t)}, Concurrent: 1, Queue: 1})
	s.slots <- struct{}{} // a generation holds the only slot
	waited := make(chan int, 1)
	go func() {
		resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(`{"model": "default", "prompt": "x", "max_tokens": 2}`))
		if err != nil {
			waited <- 0
			return
		}
		resp.Body.Close()
		waited <- resp.StatusCode
	}()
	deadline := time.Now().Add(5 * time.Second)
	for s.queued.Load() != 1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(`{"model": "default", "prompt": "x", "max_tokens": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a request past the queue: status %d, Retry-After %q; want 429 and a time", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	<-s.slots
	select {
	case status := <-waited:
		if status != 200 {
			t.Errorf("the request that waited: status %d", status)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the request that waited never ran")
	}
}

// TestDisconnectCancels: a client that goes away mid-stream ends its
// generation, and its slot is free again.
func TestDisconnectCancels(t *testing.T) {
	s, url := start(t, Config{Models: []*Model{builtIn(t)}, Concurrent: 1})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/completions", bytes.NewReader([]byte(`{"model": "default", "prompt": "func", "stream": true, "temperature": 1, "logit_bias": {"2": -100, "1": -100}}`)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	bufio.NewReader(resp.Body).ReadString('\n') // the first event: the generation runs
	if len(s.slots) != 1 {
		t.Fatalf("%d generations running; want 1", len(s.slots))
	}
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(10 * time.Second)
	for len(s.slots) != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if len(s.slots) != 0 {
		t.Error("the generation still holds its slot 10 s after its client went away")
	}
}

// FuzzRequest: whatever the body, reading and checking a request answers
// with a plan or an API error, and never panics.
func FuzzRequest(f *testing.F) {
	for _, seed := range []string{
		`{"model": "default", "prompt": "x", "max_tokens": 3, "stop": ["a", "b"], "logit_bias": {"3": -100}}`,
		`{"model": "default", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], "response_format": {"type": "json_schema", "json_schema": {"schema": {"type": "object"}}}}`,
		`{"model": "default", "prompt": ["x"], "n": 2, "seed": -1, "top_k": 3, "min_p": 0.5, "stream": true, "stream_options": {"include_usage": true}}`,
		`{"model": 1}`, `[]`, `null`, `{"stop": 7}`, "{\"prompt\": \"\xff\"}",
	} {
		f.Add([]byte(seed))
	}
	m, tok, err := models.Default()
	if err != nil {
		f.Fatal(err)
	}
	s, err := New(Config{Models: []*Model{{ID: "default", Model: m, Tokenizer: tok}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, path := range []string{"/v1/chat/completions", "/v1/completions"} {
			w := httptest.NewRecorder()
			r := httptest.NewRequest("POST", path, bytes.NewReader(body))
			var p *plan
			var e *apiError
			if path == "/v1/completions" {
				var req completionRequest
				p, e = s.read(w, r, &req, func() (*plan, *apiError) { return s.completionPlan(&req) })
			} else {
				var req chatRequest
				p, e = s.read(w, r, &req, func() (*plan, *apiError) { return s.chatPlan(&req) })
			}
			switch {
			case (p == nil) == (e == nil):
				t.Fatalf("%s %q: plan %v and error %v", path, body, p, e)
			case e != nil && (e.Status < 400 || e.Status > 499 || e.Message == ""):
				t.Fatalf("%s %q: error %+v is not a 4xx with a message", path, body, e)
			}
		}
	})
}

// TestShownRequests sends every curl request that the course's READMEs
// show to a server of the models they name, and checks that it is
// answered: a stream ending in [DONE], or a JSON answer with a choice.
func TestShownRequests(t *testing.T) {
	root, err := cmddoc.Root(".")
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := cmddoc.Shown(root, []string{"README.md", "exercises/README.md", "kernel/README.md"}, "curl ")
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) == 0 {
		t.Skip("the READMEs show no request")
	}
	_, url := start(t, Config{Models: []*Model{smolLM2(t), builtIn(t)}})
	for _, c := range cmds {
		if c.Args[0] != "curl" {
			continue
		}
		var target, body string
		for i, a := range c.Args {
			switch {
			case strings.HasPrefix(a, "http://127.0.0.1:8080/"):
				target = url + strings.TrimPrefix(a, "http://127.0.0.1:8080")
			case a == "-d" && i+1 < len(c.Args):
				body = c.Args[i+1]
			}
		}
		if target == "" || body == "" {
			t.Errorf("%s: no URL of the server, or no -d body", c)
			continue
		}
		if strings.Contains(body, `"stream": true`) {
			if chunks := streamChunks(t, target, body); len(chunks) < 2 {
				t.Errorf("%s: %d chunks", c, len(chunks))
			}
			continue
		}
		if status, out := post(t, target, body); status != http.StatusOK || len(out["choices"].([]any)) == 0 {
			t.Errorf("%s: status %d, %v", c, status, out)
		}
	}
}

// BenchmarkStreamed measures what the HTTP path costs a streamed answer:
// the same greedy generation of a fixed number of tokens (the end tokens
// banned) through decoding.Generate, and through the server's SSE stream on
// loopback, side by side. Each reports tokens per second; their ratio is
// the overhead:
//
//	go test ./engine/serve -run '^$' -bench Streamed -count 5
func BenchmarkStreamed(b *testing.B) {
	for _, load := range []func(*testing.T) *Model{builtIn, smolLM2} {
		var m *Model
		t := &testing.T{}
		func() {
			defer func() { recover() }()
			m = load(t)
		}()
		if m == nil {
			continue
		}
		const tokens = 128
		bias := map[int]float32{}
		body := map[string]any{"model": m.ID, "prompt": "The", "temperature": 0, "max_tokens": tokens, "stream": true}
		lb := map[string]float64{}
		for id := range m.Model.Config.VocabSize {
			if m.Tokenizer.IsEnd(id) {
				bias[id] = float32(math.Inf(-1))
				lb[fmt.Sprint(id)] = -100
			}
		}
		body["logit_bias"] = lb
		opts := decoding.Options{MaxNewTokens: tokens, LogitBias: bias, NoLogProbs: true}
		b.Run(m.ID+"/engine", func(b *testing.B) {
			n := 0
			for b.Loop() {
				for _, err := range decoding.Generate(context.Background(), m.Model, m.Tokenizer, "The", opts) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "tok/s")
		})
		b.Run(m.ID+"/http", func(b *testing.B) {
			s, err := New(Config{Models: []*Model{m}})
			if err != nil {
				b.Fatal(err)
			}
			ts := httptest.NewServer(s.Handler())
			defer ts.Close()
			data, _ := json.Marshal(body)
			n := 0
			for b.Loop() {
				resp, err := http.Post(ts.URL+"/v1/completions", "application/json", bytes.NewReader(data))
				if err != nil {
					b.Fatal(err)
				}
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() {
					if strings.HasPrefix(sc.Text(), "data: {") {
						n++
					}
				}
				resp.Body.Close()
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}

// TestClosing: a server shutting down refuses new generations with 503
// and Retry-After.
func TestClosing(t *testing.T) {
	s, url := start(t, Config{Models: []*Model{builtIn(t)}})
	s.Close()
	resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(`{"model": "default", "prompt": "x", "max_tokens": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("status %d, Retry-After %q; want 503 and a time", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

// TestStreamedChoices: n choices streamed, each with its index, each
// equal to the same choice asked for alone (choice i is seeded seed+i).
func TestStreamedChoices(t *testing.T) {
	m := builtIn(t)
	_, url := start(t, Config{Models: []*Model{m}})
	chunks := streamChunks(t, url+"/v1/completions", `{"model": "default", "prompt": "func", "max_tokens": 12, "seed": 5, "n": 2, "stream": true}`)
	texts := map[float64]string{}
	for _, c := range chunks {
		for _, ch := range c["choices"].([]any) {
			choice := ch.(map[string]any)
			texts[choice["index"].(float64)] += choice["text"].(string)
		}
	}
	for i := range 2 {
		_, out := post(t, url+"/v1/completions", fmt.Sprintf(`{"model": "default", "prompt": "func", "max_tokens": 12, "seed": %d}`, 5+i))
		alone := out["choices"].([]any)[0].(map[string]any)["text"].(string)
		if texts[float64(i)] != alone {
			t.Errorf("streamed choice %d %q; asked alone with seed %d: %q", i, texts[float64(i)], 5+i, alone)
		}
	}
}

// TestConcurrentRequestsBatched: requests sent at once are answered in
// shared steps (continuous batching), and each answer is the one its
// request gets alone, token for token.
func TestConcurrentRequestsBatched(t *testing.T) {
	m := smolLM2(t)
	s, url := start(t, Config{Models: []*Model{m}})
	prompts := []string{"func main() {", "Once upon a time", "The capital of France is", "1, 2, 3,", "package ", "SELECT * FROM", "// Copyright", "def f(x):"}
	got := make([]string, len(prompts))
	var wg sync.WaitGroup
	for i, prompt := range prompts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, out := post(t, url+"/v1/completions", fmt.Sprintf(`{"model": "smollm2", "prompt": %q, "temperature": 0, "max_tokens": %d}`, prompt, 16+4*i))
			if status != http.StatusOK {
				t.Errorf("prompt %q: status %d: %v", prompt, status, out)
				return
			}
			got[i] = out["choices"].([]any)[0].(map[string]any)["text"].(string)
		}()
	}
	wg.Wait()
	for i, prompt := range prompts {
		want, _, _, _ := engineText(t, m, prompt, decoding.Options{MaxNewTokens: 16 + 4*i}, true)
		if got[i] != want {
			t.Errorf("prompt %q: among others %q; alone %q", prompt, got[i], want)
		}
	}
	stats := s.scheds[m].Stats()
	if stats.MostActive < 2 {
		t.Errorf("no step ran two requests' tokens: %+v", stats)
	}
	t.Logf("scheduler: %+v", stats)
}

// The soak's size: the short soak of make test by default; the long one
// (engine/cmd/bench/soak.sh) sets them.
var (
	soakClients  = flag.Int("soak.clients", 24, "TestSoak: clients sending requests at once")
	soakDuration = flag.Duration("soak.duration", 3*time.Second, "TestSoak: how long the clients send requests")
	soakModel    = flag.String("soak.model", "default", "TestSoak: the model served, default (the course's) or smollm2")
	soakBlocks   = flag.Int("soak.blocks", 64, "TestSoak: the KV budget, in blocks of 16 positions")
)

// TestSoak is a soak on loopback: clients sending completions one after
// another for a while, some streamed, some of them hanging up after the
// first pieces, some with prompts long enough to run in several chunks,
// through a KV pool too small for all of them at once, so that
// sequences are preempted and computed again. Every answer that
// completes is the one its request gets alone, bit for bit in its text;
// every sequence, finished or abandoned, is closed at the end and its
// blocks are back in the pool; the pool never makes more blocks than
// its budget, and the heap stays within the budget and a margin; nothing
// fails. By default it is the short soak of make test (24 clients, 3
// seconds); soak.sh runs the long one.
func TestSoak(t *testing.T) {
	m := builtIn(t)
	if *soakModel == "smollm2" {
		m = smolLM2(t)
	}
	pool, err := m.Model.NewBlockPool(16, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	sc := schedule.Config{Chunk: 32, StepTokens: 64, KVMemory: int64(*soakBlocks) * pool.BlockBytes()}
	cfg := Config{Models: []*Model{m}, Concurrent: *soakClients, Queue: 2 * *soakClients, Schedule: sc}
	s, url := start(t, cfg)
	long := strings.Repeat("func (b *Buffer) Len() int { return len(b.buf) - b.off }\n", 12)
	prompts := []string{"func main() {", "package ", "// Copyright", long, "type Reader interface {", long + "func"}
	type answer struct {
		prompt string
		max    int
		text   string
	}
	var (
		mu        sync.Mutex
		answers   []answer
		hungUp    int
		failures  []string
		deadline  = time.Now().Add(*soakDuration)
		wg        sync.WaitGroup
		requests  int
		completed int
		bytes     int64
	)
	// The heap, sampled while the clients run.
	var peak uint64
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for time.Now().Before(deadline) {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			time.Sleep(50 * time.Millisecond)
		}
	}()
	for c := range *soakClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				prompt, max := prompts[(c+i)%len(prompts)], 8+(c*7+i*3)%24
				body := fmt.Sprintf(`{"model": %q, "prompt": %q, "temperature": 0, "max_tokens": %d, "stream": %v}`, m.ID, prompt, max, c%2 == 0)
				ctx, cancel := context.WithCancel(context.Background())
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/completions", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					cancel()
					mu.Lock()
					failures = append(failures, err.Error())
					mu.Unlock()
					return
				}
				text, ok, problem := readAnswer(resp, c%2 == 0, c%3 == 0 && i%2 == 1)
				resp.Body.Close()
				cancel()
				mu.Lock()
				requests++
				bytes += int64(len(text))
				switch {
				case problem != "":
					failures = append(failures, problem)
				case ok:
					completed++
					answers = append(answers, answer{prompt, max, text})
				default:
					hungUp++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	<-sampled
	if len(failures) > 0 {
		t.Fatalf("%d of %d requests failed, the first: %s", len(failures), requests, failures[0])
	}
	// The abandoned generations leave at the next step: wait for them.
	for end := time.Now().Add(5 * time.Second); s.scheds[m].Stats().Sequences != 0 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	stats := s.scheds[m].Stats()
	if stats.Sequences != 0 || stats.Pool.Held != 0 {
		t.Errorf("after every client left: %d sequences open, %d blocks held", stats.Sequences, stats.Pool.Held)
	}
	if stats.Pool.Made > stats.Pool.Blocks {
		t.Errorf("the pool made %d blocks, over its budget of %d", stats.Pool.Made, stats.Pool.Blocks)
	}
	if limit := uint64(sc.KVMemory) + 512<<20; peak > limit {
		t.Errorf("the heap reached %d MiB, over the KV budget of %d MiB and 512 MiB", peak>>20, sc.KVMemory>>20)
	}
	alone := map[string]string{}
	for _, a := range answers {
		key := fmt.Sprint(a.max, a.prompt)
		want, ok := alone[key]
		if !ok {
			want = aloneText(t, m, sc, a.prompt, a.max)
			alone[key] = want
		}
		if a.text != want {
			t.Errorf("prompt %q, max_tokens %d: under load %q; alone %q", clip(a.prompt, 40), a.max, a.text, want)
		}
	}
	if completed == 0 || hungUp == 0 || stats.MostActive < 8 {
		t.Errorf("the soak did not soak: %d completed, %d hung up, at most %d sequences in a step", completed, hungUp, stats.MostActive)
	}
	t.Logf("%d clients for %v: %d requests, %d completed, %d hung up, %d bytes of text, lost 0; heap at most %d MiB (KV budget %d MiB in %d blocks); scheduler %+v",
		*soakClients, *soakDuration, requests, completed, hungUp, bytes, peak>>20, sc.KVMemory>>20, stats.Pool.Blocks, stats)
}

// aloneText is prompt's greedy completion of max tokens by a scheduler
// of its own, of the limits cfg sets.
func aloneText(t *testing.T, m *Model, cfg schedule.Config, prompt string, max int) string {
	t.Helper()
	shared, done := ownScheduler(t, m, cfg)
	defer done()
	var text string
	for step, err := range decoding.Generate(context.Background(), m.Model, m.Tokenizer, prompt, decoding.Options{MaxNewTokens: max, Decoder: shared}) {
		if err != nil {
			t.Fatal(err)
		}
		text += step.Text
	}
	return text
}

// ownScheduler is a sequence of a scheduler of m's of its own, of the
// limits cfg sets, as a decoder; done closes both.
func ownScheduler(t *testing.T, m *Model, cfg schedule.Config) (shared decoding.Shared, done func()) {
	t.Helper()
	sched, err := schedule.New(m.Model, cfg)
	if err != nil {
		t.Fatal(err)
	}
	seq, err := sched.NewSequence()
	if err != nil {
		sched.Close()
		t.Fatal(err)
	}
	return decoding.Shared{Seq: seq}, func() {
		seq.Close()
		sched.Close()
	}
}

// readAnswer reads a completion's text, streamed or not; with hangUp it
// reads the first two events of a stream and stops (ok false).
func readAnswer(resp *http.Response, streamed, hangUp bool) (text string, ok bool, problem string) {
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(resp.Body)
		return "", false, fmt.Sprintf("status %d: %s", resp.StatusCode, data)
	}
	if !streamed {
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			return "", false, err.Error()
		}
		return out["choices"].([]any)[0].(map[string]any)["text"].(string), true, ""
	}
	sc := bufio.NewScanner(resp.Body)
	events := 0
	for sc.Scan() {
		data, found := strings.CutPrefix(sc.Text(), "data: ")
		if !found {
			continue
		}
		if data == "[DONE]" {
			return text, true, ""
		}
		events++
		if hangUp && events == 2 {
			return "", false, ""
		}
		var chunk map[string]any
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			return "", false, fmt.Sprintf("an event that is not JSON: %q", data)
		}
		if choices, _ := chunk["choices"].([]any); len(choices) > 0 {
			text += choices[0].(map[string]any)["text"].(string)
		}
	}
	return "", false, fmt.Sprintf("the stream ended without [DONE]: %v", sc.Err())
}
