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
	// Gather is how long a step waits for the sequences of the last step
	// to ask for their next token before it runs without them (default
	// 2 ms): their sampling, and handing the text to the user, happen
	// between steps.
	Gather time.Duration
	// StepTokens is the most tokens (rows) a step runs, decoding steps
	// and pieces of prompts together (default Chunk + 64).
	StepTokens int
	// KVMemory is the budget of the KV block pool, in bytes (default
	// 1 GiB): the keys and values of every sequence live in it, made as
	// they are needed.
	KVMemory int64
	// BlockSize is the positions of a KV block (default 16, 1 to 64).
	BlockSize int
	// MaxWait is how many steps a request may be passed over before it
	// runs first (default 16).
	MaxWait int
	// Policy picks each step's batch (default FCFS).
	Policy Policy
}

// ErrClosed is what a Seq's Logits returns once its Scheduler is closed.
var ErrClosed = errors.New("schedule: the scheduler is closed")

// errClosedSeq is what a request of a sequence closed while it waited
// gets.
var errClosedSeq = errors.New("schedule: the sequence was closed")

// Scheduler runs the forward passes of its sequences, one batched pass a
// step, on a goroutine of its own. Its methods are safe for concurrent
// use.
type Scheduler struct {
	model *engine.Model
	cfg   Config
	pass  *engine.Pass
	pool  *engine.BlockPool

	mu      sync.Mutex
	wake    chan struct{} // a request arrived, a sequence closed, or Close
	pending []*request    // what the sequences asked for and has not run, in order of asking
	expect  int           // sequences answered by the last step that have not asked again or closed
	closed  bool
	stats   Stats
	seqs    int           // sequences numbered so far
	arrived int64         // requests numbered so far
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
	Preempted  int64 // sequences whose blocks were given back, to be computed again
	Recomputed int64 // tokens run again after a preemption
	// Refused counts the plans of the Policy that broke its rules (FCFS's
	// ran instead), and Refusal says what the last one broke.
	Refused int64
	Refusal string
	Pool    engine.PoolStats
}

// New starts a scheduler for m. Close stops it.
func New(m *engine.Model, cfg Config) (*Scheduler, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if cfg.Chunk == 0 {
		cfg.Chunk = 512
	}
	if cfg.StepTokens == 0 {
		cfg.StepTokens = cfg.Chunk + 64
	}
	if cfg.Gather == 0 {
		cfg.Gather = 2 * time.Millisecond
	}
	if cfg.KVMemory == 0 {
		cfg.KVMemory = 1 << 30
	}
	if cfg.BlockSize == 0 {
		cfg.BlockSize = 16
	}
	if cfg.MaxWait == 0 {
		cfg.MaxWait = 16
	}
	if cfg.Policy == nil {
		cfg.Policy = FCFS
	}
	switch {
	case cfg.Chunk < 1 || cfg.Chunk > engine.Ubatch:
		return nil, fmt.Errorf("schedule: Chunk = %d: must be 1 to %d (a prompt's batch, ubatch)", cfg.Chunk, engine.Ubatch)
	case cfg.StepTokens < cfg.Chunk:
		return nil, fmt.Errorf("schedule: StepTokens = %d: must be at least Chunk (%d)", cfg.StepTokens, cfg.Chunk)
	case cfg.Gather < 0:
		return nil, fmt.Errorf("schedule: Gather = %v: must not be negative", cfg.Gather)
	case cfg.MaxWait < 1:
		return nil, fmt.Errorf("schedule: MaxWait = %d: must be positive", cfg.MaxWait)
	}
	pool, err := m.NewBlockPool(cfg.BlockSize, cfg.KVMemory)
	if err != nil {
		return nil, fmt.Errorf("schedule: %w", err)
	}
	s := &Scheduler{model: m, cfg: cfg, pass: m.NewPass(), pool: pool, wake: make(chan struct{}, 1), done: make(chan struct{})}
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
	st := s.stats
	st.Pool = s.pool.Stats()
	return st
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
	id       int
	cache    *engine.PagedCache
	n        int       // tokens in the cache
	logits   []float32 // the last answer, the caller's until the next call
	expected bool      // the last step answered it: the next step waits for it
	closed   bool
	// The tokens in the cache, where each run of them in a step ended,
	// and whether each position's attention was by tiles: what computing
	// the sequence again, after a preemption, must repeat.
	hist  []int
	runs  []int
	tiled []bool
}

// NewSequence opens a sequence with an empty cache.
func (s *Scheduler) NewSequence() (*Seq, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	s.stats.Sequences++
	s.seqs++
	return &Seq{s: s, id: s.seqs, cache: s.pool.NewCache()}, nil
}

// Pool returns the scheduler's KV block pool.
func (s *Scheduler) Pool() *engine.BlockPool { return s.pool }

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
	// Its blocks go back now, unless a step running writes to them: then
	// when it ends (finish). A request still waiting fails.
	inStep := false
	for _, r := range slices.Clone(s.pending) {
		if r.q != q {
			continue
		}
		if r.take > 0 {
			inStep = true
			continue
		}
		r.err = errClosedSeq
		s.remove(r)
		close(r.ready)
	}
	if !inStep {
		q.cache.Release()
	}
	s.mu.Unlock()
	s.signal()
}

// request is one call of Logits: tokens to run from position pos, of
// which done have run, in pieces that end at cuts (offsets in tokens),
// each attended by tiles or not as tiled says (a flag per token).
type request struct {
	q       *Seq
	tokens  []int
	pos     int
	done    int
	cuts    []int
	tiled   []bool
	replay  bool // it computes its sequence again after a preemption
	fresh   bool // its sequence is new: the prefix cache may hold its start
	arrived int64
	waited  int
	take    int  // how many run in the step being built
	cancel  bool // its caller gave up: it leaves after the step running
	err     error
	ready   chan struct{}
}

// next is the size of r's next piece.
func (r *request) next() int {
	for _, c := range r.cuts {
		if c > r.done {
			return c - r.done
		}
	}
	return len(r.tokens) - r.done
}

// plan cuts the tokens of r every chunk tokens from its start, and flags
// each piece's attention as the model computes it.
func (r *request) plan(m *engine.Model, chunk int) {
	r.cuts, r.tiled = r.cuts[:0], r.tiled[:0]
	for a := 0; a < len(r.tokens); a += chunk {
		e := min(a+chunk, len(r.tokens))
		r.cuts = append(r.cuts, e)
		for range e - a {
			r.tiled = append(r.tiled, m.TiledRun(e-a))
		}
	}
}

// reuse takes the longest prefix of r's tokens the prefix cache holds
// into its sequence's empty cache: whole blocks of the same tokens,
// computed the way r computes them (r.tiled). The rest of the piece the
// prefix ends in then runs attended as the whole piece is (Row.Tiled),
// so that r, and its sequence computed again after a preemption, keep
// the numbers r computes alone. r runs from position 0.
func (s *Scheduler) reuse(r *request) {
	q := r.q
	m := q.cache.Reuse(r.tokens, r.tiled, len(r.tokens)-1)
	if m == 0 {
		return
	}
	r.done = m
	q.n = m
	q.hist = append(q.hist[:0], r.tokens[:m]...)
	q.tiled = append(q.tiled[:0], r.tiled[:m]...)
	q.runs = q.runs[:0]
	for _, c := range r.cuts {
		if c < m {
			q.runs = append(q.runs, c)
		}
	}
	q.runs = append(q.runs, m)
}

// rows appends the rows of r's next r.take tokens to batch, the last of
// its tokens asking for logits.
func (r *request) rows(batch []engine.Row) []engine.Row {
	for at := r.done; at < r.done+r.take; at++ {
		batch = append(batch, engine.Row{Token: r.tokens[at], Pos: r.pos + at, Cache: r.q.cache, Logits: at == len(r.tokens)-1, Tiled: r.tiled[at]})
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
	s := q.s
	if need, have := s.pool.BlocksFor(len(seq)), s.pool.Stats().Blocks; need > have {
		return nil, fmt.Errorf("schedule: a sequence of %d tokens needs %d KV blocks of %d positions; the pool holds %d (KVMemory %d bytes)", len(seq), need, s.cfg.BlockSize, have, s.cfg.KVMemory)
	}
	r := &request{q: q, tokens: slices.Clone(seq[q.n:]), pos: q.n, ready: make(chan struct{})}
	r.plan(s.model, s.cfg.Chunk)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	r.fresh = q.n == 0
	s.arrived++
	r.arrived = s.arrived
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

// next waits for work and builds the next step, as the Policy plans it.
// It returns nil requests once the scheduler is closed.
func (s *Scheduler) next(batch []engine.Row, taken []*request) ([]engine.Row, []*request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for len(s.pending) == 0 && !s.closed {
			s.mu.Unlock()
			<-s.wake
			s.mu.Lock()
		}
		s.gather()
		if s.closed {
			for _, r := range s.pending {
				r.err = ErrClosed
				close(r.ready)
			}
			s.pending = nil
			return nil, nil
		}
		// A new sequence's start may be in the prefix cache. (Taking
		// blocks happens here, between steps, never while a pass
		// counts on them.)
		for _, r := range s.pending {
			if r.fresh {
				r.fresh = false
				s.reuse(r)
			}
		}
		step := s.step()
		plan := s.plan(step)
		for _, seq := range plan.Preempt {
			s.preempt(s.find(seq))
		}
		// A preempted sequence computed again may find its blocks in
		// the prefix cache: it takes them first, and then the blocks
		// the step takes are counted as the takes are; a take that would
		// need more than are left waits for another step.
		for _, t := range plan.Run {
			if r := s.find(t.Seq); r.replay && r.done == 0 && r.q.cache.Len() == 0 {
				s.reuse(r)
			}
		}
		need, free := 0, s.pool.Available()
		for _, t := range plan.Run {
			r := s.find(t.Seq)
			n := min(t.Tokens, r.next())
			kv := r.q.cache
			more := max(s.pool.BlocksFor(kv.Len()+n)-kv.Blocks(), 0)
			if need+more > free {
				continue
			}
			need += more
			r.take = n
			batch = r.rows(batch)
			taken = append(taken, r)
		}
		for _, r := range s.pending {
			if r.take == 0 {
				r.waited++
			}
		}
		if len(taken) > 0 {
			return batch, taken
		}
		// Nothing could run. A preempted sequence may have given back
		// fewer blocks than it held (blocks it shared with others stay
		// theirs): plan again. Otherwise the oldest request is starving,
		// and may now preempt others; if even that cannot make room (the
		// blocks are held by sequences that are sampling), wait for one
		// of them.
		if len(plan.Preempt) > 0 {
			continue
		}
		if oldest := s.pending[0]; oldest.waited < s.cfg.MaxWait {
			oldest.waited = s.cfg.MaxWait
			continue
		}
		s.mu.Unlock()
		<-s.wake
		s.mu.Lock()
	}
}

// gather waits a moment for the sequences the last step answered, which
// are sampling their next token, so that the step runs them too. s.mu is
// held.
func (s *Scheduler) gather() {
	if s.expect == 0 || s.closed {
		return
	}
	deadline := time.NewTimer(s.cfg.Gather)
	defer deadline.Stop()
	for s.expect > 0 && !s.closed {
		s.mu.Unlock()
		select {
		case <-s.wake:
			s.mu.Lock()
		case <-deadline.C:
			s.mu.Lock()
			return
		}
	}
}

// step is what the Policy sees. s.mu is held.
func (s *Scheduler) step() Step {
	st := Step{Budget: Budget{
		Tokens: s.cfg.StepTokens, Chunk: s.cfg.Chunk, BlockSize: s.cfg.BlockSize,
		FreeBlocks: s.pool.Available(), MaxWait: s.cfg.MaxWait,
	}}
	for _, r := range s.pending {
		st.Requests = append(st.Requests, Request{
			Seq: r.q.id, Arrived: r.arrived, Cached: r.q.cache.Len(), Blocks: r.q.cache.Blocks(),
			Next: r.next(), Left: len(r.tokens) - r.done, Waited: r.waited,
		})
	}
	return st
}

// plan asks the Policy for a plan, and runs FCFS's instead of one that
// breaks its rules, or a Policy that panics.
func (s *Scheduler) plan(st Step) (plan Plan) {
	if s.cfg.Policy != nil {
		func() {
			defer func() {
				if v := recover(); v != nil {
					plan = Plan{}
					s.refuse(fmt.Sprintf("the policy panicked: %v", v))
				}
			}()
			mine := Step{Requests: slices.Clone(st.Requests), Budget: st.Budget}
			plan = s.cfg.Policy(mine)
			plan.Run, plan.Preempt = slices.Clone(plan.Run), slices.Clone(plan.Preempt)
			if why := check(st, plan); why != "" {
				s.refuse(why)
				plan = Plan{}
			}
		}()
		if plan.Run != nil || plan.Preempt != nil {
			return plan
		}
	}
	return FCFS(st)
}

func (s *Scheduler) refuse(why string) {
	s.stats.Refused++
	s.stats.Refusal = why
}

// find is the pending request of sequence seq. s.mu is held.
func (s *Scheduler) find(seq int) *request {
	for _, r := range s.pending {
		if r.q.id == seq {
			return r
		}
	}
	panic(fmt.Sprintf("schedule: no request of sequence %d", seq)) // check vetted the plan
}

// preempt gives r's sequence's blocks back to the pool: r will compute
// it again from its first token, in the pieces it was computed in, so
// that its numbers are the same. s.mu is held.
func (s *Scheduler) preempt(r *request) {
	q := r.q
	rest := r.tokens[r.done:]
	restCuts := make([]int, 0, len(r.cuts))
	for _, c := range r.cuts {
		if c > r.done {
			restCuts = append(restCuts, q.n+c-r.done)
		}
	}
	r.tokens = append(slices.Clone(q.hist[:q.n]), rest...)
	r.tiled = append(slices.Clone(q.tiled[:q.n]), r.tiled[r.done:]...)
	r.cuts = append(slices.Clone(q.runs), restCuts...)
	r.pos, r.done, r.replay = 0, 0, true
	s.stats.Recomputed += int64(q.n)
	s.stats.Preempted++
	q.cache.Release()
	q.n = 0
	q.hist, q.runs, q.tiled = q.hist[:0], q.runs[:0], q.tiled[:0]
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
		if r.q.closed && err == nil {
			err = errClosedSeq
		}
		if err != nil {
			r.err = err
			s.remove(r)
			close(r.ready)
			continue
		}
		q := r.q
		q.hist = append(q.hist[:r.pos+r.done], r.tokens[r.done:r.done+r.take]...)
		q.tiled = append(q.tiled[:r.pos+r.done], r.tiled[r.done:r.done+r.take]...)
		r.done += r.take
		r.take = 0
		r.waited = 0
		q.n = r.pos + r.done
		q.runs = append(q.runs, q.n)
		if r.done < len(r.tokens) {
			if r.cancel {
				r.err = context.Canceled
				s.remove(r)
				close(r.ready)
			}
			continue // more pieces to run
		}
		q.logits = append(q.logits[:0], out[k]...)
		k++
		if !q.closed {
			q.expected = true
			s.expect++
		}
		s.remove(r)
		close(r.ready)
	}
	for _, r := range taken {
		if r.q.closed {
			r.q.cache.Release()
		}
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
