package serve

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/constrain"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/schedule"
)

// Model is a model the server answers for, under the name requests give.
type Model struct {
	ID        string // the name requests use: "smollm2"
	Model     *engine.Model
	Tokenizer *engine.Tokenizer

	mu          sync.Mutex
	constraints map[string]*decoding.Constraint // compiled response formats, by schema
}

// maxConstraints bounds the compiled response formats a model keeps.
const maxConstraints = 32

// constraint compiles a grammar for the model's vocabulary, once for each
// schema text.
func (m *Model) constraint(key string, g *constrain.Grammar) (*decoding.Constraint, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.constraints[key]; ok {
		return c, nil
	}
	c, err := decoding.NewConstraint(m.Tokenizer, g)
	if err != nil {
		return nil, err
	}
	if m.constraints == nil || len(m.constraints) >= maxConstraints {
		m.constraints = map[string]*decoding.Constraint{}
	}
	m.constraints[key] = c
	return c, nil
}

// Config sets a server's models and limits. The zero value of a limit
// takes its default.
type Config struct {
	Models []*Model
	// APIKey, when set, is the key every request must bring as
	// "Authorization: Bearer <key>"; it is compared in constant time.
	APIKey string
	// Concurrent is how many generations run at once (default 32), and
	// Queue how many requests may wait for one (default 64). Past both,
	// a request gets 429 with Retry-After.
	Concurrent, Queue int
	// Unbatched runs each generation's forward passes on their own, as a
	// server without continuous batching does. By default a scheduler
	// runs the next token of every generation of a model as one batched
	// pass (package engine/schedule).
	Unbatched bool
	// Schedule sets the scheduler's limits (its zero value: the
	// defaults).
	Schedule schedule.Config
	// MaxBodyBytes bounds a request's body (default 1 MiB): past it, 413.
	MaxBodyBytes int64
	// DefaultMaxTokens is how many tokens a request that sets no
	// max_tokens may generate; 0 means until the model ends its text or
	// the context is full, as the API's own default is. On a laptop's
	// cores, a model that rambles to the end of a context of 8,192 tokens
	// takes minutes, so the serve command sets it.
	DefaultMaxTokens int
}

// Defaults of Config's limits.
const (
	DefaultConcurrent   = 32
	DefaultQueue        = 64
	DefaultMaxBodyBytes = 1 << 20
	maxN                = 8 // choices one request may ask for
)

// Server answers the OpenAI API's chat and completion requests with the
// engine. Its Handler serves:
//
//	POST /v1/chat/completions
//	POST /v1/completions
//	GET  /v1/models
//	GET  /health
type Server struct {
	models []*Model
	cfg    Config
	slots  chan struct{} // a token a running generation
	queued atomic.Int64  // requests waiting for a slot
	closed atomic.Bool
	// scheds run the passes of each model's generations, batched; none
	// when each generation runs its own (Config.Unbatched).
	scheds map[*Model]*schedule.Scheduler
}

// New makes a server for the configured models.
func New(cfg Config) (*Server, error) {
	if len(cfg.Models) == 0 {
		return nil, fmt.Errorf("no models to serve")
	}
	seen := map[string]bool{}
	for i, m := range cfg.Models {
		switch {
		case m == nil || m.Model == nil || m.Tokenizer == nil:
			return nil, fmt.Errorf("model %d has no model or tokenizer", i)
		case m.ID == "":
			return nil, fmt.Errorf("model %d has no ID", i)
		case seen[m.ID]:
			return nil, fmt.Errorf("two models are named %q", m.ID)
		}
		if err := m.Model.Validate(); err != nil {
			return nil, fmt.Errorf("model %s: %w", m.ID, err)
		}
		seen[m.ID] = true
	}
	switch {
	case cfg.Concurrent < 0 || cfg.Concurrent > 1024:
		return nil, fmt.Errorf("concurrent = %d: want 1 to 1024 (0: %d)", cfg.Concurrent, DefaultConcurrent)
	case cfg.Queue < 0 || cfg.Queue > 1<<16:
		return nil, fmt.Errorf("queue = %d: want 0 to 65536 (0: %d)", cfg.Queue, DefaultQueue)
	case cfg.DefaultMaxTokens < 0:
		return nil, fmt.Errorf("default max tokens = %d: want 0 (until the context is full) or more", cfg.DefaultMaxTokens)
	case cfg.MaxBodyBytes < 0:
		return nil, fmt.Errorf("max body = %d bytes: want a positive size (0: %d)", cfg.MaxBodyBytes, DefaultMaxBodyBytes)
	}
	if cfg.Concurrent == 0 {
		cfg.Concurrent = DefaultConcurrent
	}
	if cfg.Queue == 0 {
		cfg.Queue = DefaultQueue
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	s := &Server{models: cfg.Models, cfg: cfg, slots: make(chan struct{}, cfg.Concurrent)}
	if !cfg.Unbatched {
		s.scheds = map[*Model]*schedule.Scheduler{}
		for _, m := range cfg.Models {
			sched, err := schedule.New(m.Model, cfg.Schedule)
			if err != nil {
				s.Stop()
				return nil, fmt.Errorf("model %s: %w", m.ID, err)
			}
			s.scheds[m] = sched
		}
	}
	return s, nil
}

// Stop ends the schedulers of the server's models, once no generation is
// running (after Close and the HTTP server's Shutdown): a generation still
// running then ends with an error.
func (s *Server) Stop() {
	for m, sched := range s.scheds {
		sched.Close()
		delete(s.scheds, m)
	}
}

// Limits describes the server's bounds, for its start-up line: the memory
// it can take is the models' weights and, for each generation running at
// once, at most one full KV cache.
func (s *Server) Limits() string {
	var b strings.Builder
	for _, m := range s.models {
		c := m.Model.Config
		fmt.Fprintf(&b, "model %s: context %d tokens, KV cache at most %.0f MiB a generation\n", m.ID, c.SeqLen, float64(m.Model.KVCacheBytes(c.SeqLen))/(1<<20))
	}
	fmt.Fprintf(&b, "limits: %d generations at once, %d requests waiting, bodies up to %d KiB, %d choices a request", s.cfg.Concurrent, s.cfg.Queue, s.cfg.MaxBodyBytes>>10, maxN)
	if s.cfg.DefaultMaxTokens > 0 {
		fmt.Fprintf(&b, ", %d new tokens when max_tokens is not set", s.cfg.DefaultMaxTokens)
	}
	if sched := s.scheds[s.models[0]]; sched != nil {
		c := sched.Config()
		pool := sched.Pool()
		fmt.Fprintf(&b, "\nbatching: every generation's next token in one pass a step, up to %d tokens a step, prompts in chunks of %d", c.StepTokens, c.Chunk)
		fmt.Fprintf(&b, "\nKV memory: %d MiB at most, in %d blocks of %d positions (%.0f KiB each), shared prefixes cached", c.KVMemory>>20, pool.Stats().Blocks, pool.BlockSize(), float64(pool.BlockBytes())/1024)
	} else {
		b.WriteString("\nbatching: off, each generation runs its own passes")
	}
	return b.String()
}

// Close makes the server refuse new generations with 503, as it shuts
// down.
func (s *Server) Close() { s.closed.Store(true) }

// ids lists the served models' names.
func (s *Server) ids() []string {
	ids := make([]string, len(s.models))
	for i, m := range s.models {
		ids[i] = m.ID
	}
	return ids
}

// Handler serves the API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.authorized(s.chatCompletions))
	mux.HandleFunc("POST /v1/completions", s.authorized(s.completions))
	mux.HandleFunc("GET /v1/models", s.authorized(s.listModels))
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &apiError{Status: http.StatusNotFound, Type: "invalid_request_error",
			Message: fmt.Sprintf("no endpoint %s %s: this server has POST /v1/chat/completions, POST /v1/completions, GET /v1/models and GET /health", r.Method, clip(r.URL.Path, 80))})
	})
	return mux
}

// authorized checks the API key, when the server has one.
func (s *Server) authorized(next http.HandlerFunc) http.HandlerFunc {
	if s.cfg.APIKey == "" {
		return next
	}
	want := []byte("Bearer " + s.cfg.APIKey)
	return func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			writeError(w, (&apiError{Status: http.StatusUnauthorized, Type: "invalid_request_error",
				Message: "the request has no API key, or not this server's: send Authorization: Bearer <key>"}).withCode("invalid_api_key"))
			return
		}
		next(w, r)
	}
}

func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	list := modelList{Object: "list", Data: []modelCard{}}
	for _, m := range s.models {
		list.Data = append(list.Data, modelCard{ID: m.ID, Object: "model", OwnedBy: "tokenbytoken", ContextLength: m.Model.Config.SeqLen})
	}
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	p, e := s.read(w, r, &req, func() (*plan, *apiError) { return s.chatPlan(&req) })
	if e != nil {
		writeError(w, e)
		return
	}
	s.serve(w, r, p)
}

func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	var req completionRequest
	p, e := s.read(w, r, &req, func() (*plan, *apiError) { return s.completionPlan(&req) })
	if e != nil {
		writeError(w, e)
		return
	}
	s.serve(w, r, p)
}

// read reads and checks a request.
func (s *Server) read(w http.ResponseWriter, r *http.Request, req any, check func() (*plan, *apiError)) (*plan, *apiError) {
	body, e := readBody(w, r, s.cfg.MaxBodyBytes)
	if e != nil {
		return nil, e
	}
	if e := decodeJSON(body, req); e != nil {
		return nil, e
	}
	return check()
}

// serve waits for a slot, then generates the plan's answer.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, p *plan) {
	release, e := s.enter(r.Context())
	if e != nil {
		if e.Status != 0 {
			writeError(w, e)
		}
		return
	}
	defer release()
	p.sched = s.scheds[p.model]
	answer(w, r.Context(), p)
}

// enter takes a slot for a generation, waiting in the queue while the
// client stays. A full queue, or a server shutting down, is refused at
// once with Retry-After; a client gone while waiting gets nothing (an
// apiError of status 0).
func (s *Server) enter(ctx context.Context) (release func(), e *apiError) {
	if s.closed.Load() {
		return nil, &apiError{Status: http.StatusServiceUnavailable, Type: "server_error", Message: "the server is shutting down", RetryAfter: 5}
	}
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, nil
	default:
	}
	if s.queued.Add(1) > int64(s.cfg.Queue) {
		s.queued.Add(-1)
		return nil, (&apiError{Status: http.StatusTooManyRequests, Type: "requests",
			Message:    fmt.Sprintf("the server is busy: %d generations running and %d requests waiting; try again shortly", s.cfg.Concurrent, s.cfg.Queue),
			RetryAfter: 1}).withCode("rate_limit_exceeded")
	}
	defer s.queued.Add(-1)
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, nil
	case <-ctx.Done():
		return nil, &apiError{}
	}
}

// randomSeed picks a seed for a request that gives none.
func randomSeed() uint64 {
	var b [8]byte
	if _, err := io.ReadFull(rand.Reader, b[:]); err != nil {
		return uint64(time.Now().UnixNano())
	}
	return binary.LittleEndian.Uint64(b[:])
}

// newID makes a response's id: a prefix and 24 random hex digits.
func newID(prefix string) string {
	var b [12]byte
	io.ReadFull(rand.Reader, b[:])
	return prefix + hex.EncodeToString(b[:])
}

// Listen serves the configured models on a loopback port of its own, for
// a notebook or a test that starts a server and talks to it: it returns
// the API's base URL (http://127.0.0.1:PORT/v1) and a function that stops
// the server.
func Listen(cfg Config) (baseURL string, stop func(), err error) {
	s, err := New(cfg)
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	return "http://" + ln.Addr().String() + "/v1", func() {
		s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
		s.Stop()
	}, nil
}
