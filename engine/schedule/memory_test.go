package schedule

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

// withSystem are jobs that share a long first part, as requests sharing
// a system prompt do.
func withSystem(sample bool, system string) []job {
	var jobs []job
	for _, j := range mixedJobs(sample) {
		j.prompt = system + j.prompt
		jobs = append(jobs, j)
	}
	return jobs
}

// afterFirst runs the first job alone through a scheduler, then the
// others at once through the same scheduler.
func afterFirst(t *testing.T, m *engine.Model, tok *engine.Tokenizer, cfg Config, jobs []job) ([]result, Stats) {
	t.Helper()
	s, err := New(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first := generate(context.Background(), s, m, tok, jobs[0])
	return append([]result{first}, atOnce(s, m, tok, jobs[1:])...), s.Stats()
}

// TestPrefixCacheIsAlone: requests that share a system prompt take its
// blocks from the prefix cache (the first computes them), and each gets
// the tokens and log-probabilities, bit for bit, it gets alone in a
// scheduler of its own, with nothing cached.
func TestPrefixCacheIsAlone(t *testing.T) {
	for _, c := range []struct {
		name   string
		load   func(*testing.T) (*engine.Model, *engine.Tokenizer)
		sample bool
	}{
		{"smollm2 greedy", smolLM2, false},
		{"course sampled", course, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, tok := c.load(t)
			system := strings.Repeat("// The server answers every request in the order it came, and streams its text.\n", 6)
			cfg := Config{Chunk: 64, StepTokens: 96}
			jobs := withSystem(c.sample, system)
			got, stats := afterFirst(t, m, tok, cfg, jobs)
			for i, j := range jobs {
				sameResult(t, fmt.Sprintf("job %d", i), got[i], alone(t, m, tok, cfg, j))
			}
			if stats.Pool.Hits < int64(len(jobs)-1) || stats.Pool.Reused == 0 {
				t.Errorf("%d requests shared a system prompt: %d prefix-cache hits, %d positions reused; want a hit for each after the first", len(jobs), stats.Pool.Hits, stats.Pool.Reused)
			}
			if stats.Pool.Held != 0 {
				t.Errorf("%d blocks held after every sequence closed", stats.Pool.Held)
			}
			t.Logf("%+v", stats)
		})
	}
}

// TestPreemption: with a pool too small for every sequence at once, the
// newest are preempted and computed again later; nothing fails, every
// answer is the one it gets alone, and every block comes back.
func TestPreemption(t *testing.T) {
	for _, c := range []struct {
		name   string
		load   func(*testing.T) (*engine.Model, *engine.Tokenizer)
		sample bool
	}{
		{"smollm2 greedy", smolLM2, false},
		{"course sampled", course, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, tok := c.load(t)
			pool, err := m.NewBlockPool(8, 1<<30)
			if err != nil {
				t.Fatal(err)
			}
			// Room for 24 blocks of 8 positions: two or three of the
			// jobs at once.
			cfg := Config{Chunk: 32, StepTokens: 64, BlockSize: 8, KVMemory: 24 * pool.BlockBytes()}
			jobs := mixedJobs(c.sample)
			for i := range jobs {
				jobs[i].opts.MaxNewTokens = 40
				jobs[i].delay = 0
			}
			got, stats := together(t, m, tok, cfg, jobs)
			for i, j := range jobs {
				sameResult(t, fmt.Sprintf("job %d", i), got[i], alone(t, m, tok, cfg, j))
			}
			if stats.Preempted == 0 {
				t.Errorf("no sequence was preempted with room for %d blocks: %+v", stats.Pool.Blocks, stats)
			}
			if stats.Pool.Held != 0 || stats.Pool.Made > stats.Pool.Blocks {
				t.Errorf("after every sequence closed: %d blocks held, %d made of a budget of %d", stats.Pool.Held, stats.Pool.Made, stats.Pool.Blocks)
			}
			t.Logf("%+v", stats)
		})
	}
}

// TestBadPolicy: a Policy that breaks its rules, or panics, has its plan
// refused and FCFS's run instead: every answer is still its own.
func TestBadPolicy(t *testing.T) {
	m, tok := course(t)
	for _, c := range []struct {
		name   string
		policy Policy
		want   string
	}{
		{"nothing", func(Step) Plan { return Plan{} }, "runs nothing"},
		{"everything", func(s Step) Plan {
			var p Plan
			for _, r := range s.Requests {
				p.Run = append(p.Run, Take{r.Seq, r.Left})
			}
			return p
		}, "tokens"},
		{"a stranger", func(s Step) Plan { return Plan{Run: []Take{{Seq: -7, Tokens: 1}}} }, "sequence -7"},
		{"twice", func(s Step) Plan {
			r := s.Requests[0]
			return Plan{Run: []Take{{r.Seq, 1}, {r.Seq, 1}}}
		}, "twice"},
		{"panic", func(Step) Plan { panic("no plan") }, "panicked: no plan"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{Chunk: 16, StepTokens: 24, Policy: c.policy}
			jobs := mixedJobs(false)[:3]
			got, stats := together(t, m, tok, cfg, jobs)
			for i, j := range jobs {
				sameResult(t, fmt.Sprintf("job %d", i), got[i], alone(t, m, tok, Config{Chunk: 16, StepTokens: 24}, j))
			}
			if stats.Refused == 0 || !strings.Contains(stats.Refusal, c.want) {
				t.Errorf("%d plans refused, the last because it %q; want one that %q", stats.Refused, stats.Refusal, c.want)
			}
		})
	}
}

// TestTooLongForThePool: a sequence that needs more blocks than the pool
// holds is refused, with the numbers.
func TestTooLongForThePool(t *testing.T) {
	m, _ := course(t)
	pool, _ := m.NewBlockPool(16, 1<<30)
	s, err := New(m, Config{KVMemory: 2 * pool.BlockBytes()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	seq, _ := s.NewSequence()
	defer seq.Close()
	_, err = seq.Logits(context.Background(), make([]int, 40))
	if err == nil || !strings.Contains(err.Error(), "needs 3 KV blocks") {
		t.Errorf("40 tokens in a pool of 2 blocks of 16: %v", err)
	}
	if _, err := New(m, Config{KVMemory: 10}); err == nil {
		t.Error("a pool of 10 bytes was accepted")
	}
	if _, err := New(m, Config{Chunk: 600}); err == nil {
		t.Error("a chunk of 600 tokens, more than a ubatch, was accepted")
	}
	_ = decoding.Options{}
}
