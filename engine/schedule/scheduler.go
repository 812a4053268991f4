package schedule

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tokenbytoken/course/engine"
)

// Config sets a Scheduler's limits. The zero value of each field means
// its default.
type Config struct {
	// Chunk is the most tokens of one prompt a step runs (default 512,
	// llama.cpp's ubatch, so that a prompt's numbers are those of one
	// prefill): a longer prompt runs over several steps, and the
	// sequences already answering keep getting a token every step.
	Chunk int
	// PrefillTokens is the most prompt tokens a step runs besides the
	// decoding rows (default Chunk): whole chunks, oldest first, the
	// oldest always.
	PrefillTokens int
	// Gather is how long a step waits for the sequences of the last step
	// to ask for their next token before it runs without them (default
	// 2 ms): their sampling, and handing the text to the user, happen
	// between steps.
	Gather time.Duration
}

// ErrClosed is what a Seq's Logits returns once its Scheduler is closed.
var ErrClosed = errors.New("schedule: the scheduler is closed")

// Scheduler runs the forward passes of its sequences, one batched pass a
// step, on a goroutine of its own. Its methods are safe for concurrent
// use.
type Scheduler struct {
	model *engine.Model
	cfg   Config
	pass  *engine.Pass

	mu      sync.Mutex
	wake    chan struct{} // a request arrived, a sequence closed, or Close
	pending []*request    // what the sequences asked for and has not run, in order of asking
	expect  int           // sequences answered by the last step that have not asked again or closed
	closed  bool
	stats   Stats
	done    chan struct{} // closed when the loop ends
}

// Stats count a scheduler's work.
type Stats struct {
	Steps      int64 // batched passes
	Rows       int64 // tokens run, decoding and prompts
	Prefill    int64 // of them, prompt tokens
	MostRows   int   // the largest step
	Sequences  int   // sequences open now
	Busy       time.Duration
	Retries    int64 // steps that failed and were run again a sequence at a time
	MostActive int   // the most sequences in one step
}

// New starts a scheduler for m. Close stops it.
func New(m *engine.Model, cfg Config) (*Scheduler, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if cfg.Chunk == 0 {
		cfg.Chunk = 512
	}
	if cfg.PrefillTokens == 0 {
		cfg.PrefillTokens = cfg.Chunk
	}
	if cfg.Gather == 0 {
		cfg.Gather = 2 * time.Millisecond
	}
	switch {
	case cfg.Chunk < 1:
		return nil, fmt.Errorf("schedule: Chunk = %d: must be positive", cfg.Chunk)
	case cfg.PrefillTokens < 1:
		return nil, fmt.Errorf("schedule: PrefillTokens = %d: must be positive", cfg.PrefillTokens)
	case cfg.Gather < 0:
		return nil, fmt.Errorf("schedule: Gather = %v: must not be negative", cfg.Gather)
	}
	s := &Scheduler{model: m, cfg: cfg, pass: m.NewPass(), wake: make(chan struct{}, 1), done: make(chan struct{})}
	go s.loop()
	return s, nil
}

// Close stops the scheduler once the step running ends: what is waiting
// gets ErrClosed.
func (s *Scheduler) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.signal()
	<-s.done
}

// Config returns the scheduler's limits, defaults filled in.
func (s *Scheduler) Config() Config { return s.cfg }

// Stats returns the scheduler's counts so far.
func (s *Scheduler) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

func (s *Scheduler) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Seq is one sequence of a Scheduler: its KV cache, and the tokens run
// into it. It implements decoding.Sequence. A Seq serves one generation
// at a time.
type Seq struct {
	s        *Scheduler
	cache    *engine.KVCache
	n        int       // tokens in the cache
	logits   []float32 // the last answer, the caller's until the next call
	expected bool      // the last step answered it: the next step waits for it
	closed   bool
}

// NewSequence opens a sequence with an empty cache.
func (s *Scheduler) NewSequence() (*Seq, error) {
	kv, err := s.model.NewCache()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	s.stats.Sequences++
	return &Seq{s: s, cache: kv}, nil
}

// Close ends the sequence: the scheduler no longer waits for it, and its
// cache is let go.
func (q *Seq) Close() {
	s := q.s
	s.mu.Lock()
	if !q.closed {
		q.closed = true
		s.stats.Sequences--
		if q.expected {
			q.expected = false
			s.expect--
		}
	}
	q.cache = nil
	s.mu.Unlock()
	s.signal()
}

// request is one call of Logits: tokens to run from position pos, of
// which done have run.
type request struct {
	q      *Seq
	tokens []int
	pos    int
	done   int
	take   int  // how many run in the step being built
	cancel bool // its caller gave up: it leaves after the step running
	err    error
	ready  chan struct{}
}

// rows appends the rows of r's next r.take tokens to batch, the last of
// its tokens asking for logits.
func (r *request) rows(batch []engine.Row) []engine.Row {
	for at := r.done; at < r.done+r.take; at++ {
		batch = append(batch, engine.Row{Token: r.tokens[at], Pos: r.pos + at, Cache: r.q.cache, Logits: at == len(r.tokens)-1})
	}
	return batch
}

// Logits runs the tokens of seq the sequence has not run, and returns the
// logits after the last: see decoding.Sequence. The tokens run in the
// scheduler's steps, a prompt in chunks. When ctx is done before they all
// ran, it returns ctx's error, and the sequence holds the tokens that did
// run.
func (q *Seq) Logits(ctx context.Context, seq []int) ([]float32, error) {
	c := q.s.model.Config
	switch {
	case q.closed:
		return nil, errors.New("schedule: Logits on a closed sequence")
	case len(seq) <= q.n:
		return nil, fmt.Errorf("schedule: a sequence of %d tokens, but %d already ran: Logits needs new tokens", len(seq), q.n)
	case len(seq) > c.SeqLen:
		return nil, fmt.Errorf("schedule: a sequence of %d tokens does not fit the model's context of %d", len(seq), c.SeqLen)
	}
	for i, id := range seq[q.n:] {
		if id < 0 || id >= c.VocabSize {
			return nil, fmt.Errorf("schedule: token %d has id %d, outside the vocabulary (0..%d)", q.n+i, id, c.VocabSize-1)
		}
	}
	r := &request{q: q, tokens: slices.Clone(seq[q.n:]), pos: q.n, ready: make(chan struct{})}
	s := q.s
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	if q.expected {
		q.expected = false
		s.expect--
	}
	s.pending = append(s.pending, r)
	s.mu.Unlock()
	s.signal()

	select {
	case <-r.ready:
	case <-ctx.Done():
		s.mu.Lock()
		if i := slices.Index(s.pending, r); i >= 0 && r.take == 0 {
			// Not in the step running: it leaves now.
			s.pending = slices.Delete(s.pending, i, i+1)
			s.mu.Unlock()
			return nil, ctx.Err()
		}
		r.cancel = true
		s.mu.Unlock()
		<-r.ready // in the step running: its cache is written when it ends
		if r.err == nil {
			s.mu.Lock()
			if q.expected {
				q.expected = false
				s.expect--
			}
			s.mu.Unlock()
		}
		return nil, ctx.Err()
	}
	if r.err != nil {
		return nil, r.err
	}
	return q.logits, nil
}

// loop runs steps until Close.
func (s *Scheduler) loop() {
	defer close(s.done)
	var batch []engine.Row
	var taken []*request
	for {
		batch, taken = s.next(batch[:0], taken[:0])
		if taken == nil {
			return
		}
		start := time.Now()
		out, err := s.pass.Forward(context.Background(), batch)
		if err != nil && len(taken) > 1 {
			s.retry(taken)
			continue
		}
		s.finish(taken, out, err, time.Since(start))
	}
}

// next waits for work and builds the next step: every sequence's next
// token, then whole chunks of prompts, oldest first, up to
// PrefillTokens. It returns nil requests once the scheduler is closed.
func (s *Scheduler) next(batch []engine.Row, taken []*request) ([]engine.Row, []*request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.pending) == 0 && !s.closed {
		s.mu.Unlock()
		<-s.wake
		s.mu.Lock()
	}
	// The sequences the last step answered are sampling their next
	// token: wait a moment for them, so that the step runs them too.
	if s.expect > 0 && !s.closed {
		deadline := time.NewTimer(s.cfg.Gather)
		for waiting := true; waiting && s.expect > 0 && !s.closed; {
			s.mu.Unlock()
			select {
			case <-s.wake:
			case <-deadline.C:
				waiting = false
			}
			s.mu.Lock()
		}
		deadline.Stop()
	}
	if s.closed {
		for _, r := range s.pending {
			r.err = ErrClosed
			close(r.ready)
		}
		s.pending = nil
		return nil, nil
	}
	add := func(r *request, n int) {
		r.take = n
		batch = r.rows(batch)
		taken = append(taken, r)
	}
	for _, r := range s.pending {
		if len(r.tokens)-r.done == 1 {
			add(r, 1)
		}
	}
	budget := s.cfg.PrefillTokens
	prompts := 0
	for _, r := range s.pending {
		left := len(r.tokens) - r.done
		if left == 1 {
			continue
		}
		// A chunk ends Chunk tokens after the prompt's start, or where
		// it ends: the same places whatever else runs.
		n := min(left, s.cfg.Chunk-r.done%s.cfg.Chunk)
		if n > budget && prompts > 0 {
			continue
		}
		add(r, n)
		budget -= n
		prompts++
	}
	return batch, taken
}

// finish hands the step's results to its requests.
func (s *Scheduler) finish(taken []*request, out [][]float32, err error, took time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rows, prefill, k := 0, 0, 0
	for _, r := range taken {
		rows += r.take
		if len(r.tokens) > 1 {
			prefill += r.take
		}
		if err != nil {
			r.err = err
			s.remove(r)
			close(r.ready)
			continue
		}
		r.done += r.take
		r.take = 0
		r.q.n = r.pos + r.done
		if r.done < len(r.tokens) {
			if r.cancel {
				r.err = context.Canceled
				s.remove(r)
				close(r.ready)
			}
			continue // more chunks to run
		}
		r.q.logits = append(r.q.logits[:0], out[k]...)
		k++
		if !r.q.closed {
			r.q.expected = true
			s.expect++
		}
		s.remove(r)
		close(r.ready)
	}
	s.stats.Steps++
	s.stats.Rows += int64(rows)
	s.stats.Prefill += int64(prefill)
	s.stats.MostRows = max(s.stats.MostRows, rows)
	s.stats.MostActive = max(s.stats.MostActive, len(taken))
	s.stats.Busy += took
}

// retry runs a failed step again a request at a time, so that what made
// it fail (a cache that does not fit in memory, say) fails only its own
// sequence.
func (s *Scheduler) retry(taken []*request) {
	s.mu.Lock()
	s.stats.Retries++
	s.mu.Unlock()
	for _, r := range taken {
		start := time.Now()
		out, err := s.pass.Forward(context.Background(), r.rows(nil))
		s.finish([]*request{r}, out, err, time.Since(start))
	}
}

// remove takes r out of the pending requests.
func (s *Scheduler) remove(r *request) {
	if i := slices.Index(s.pending, r); i >= 0 {
		s.pending = slices.Delete(s.pending, i, i+1)
	}
}
