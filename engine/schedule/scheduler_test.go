package schedule

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
)

// course is the course's model, read from engine/models' files.
func course(t *testing.T) (*engine.Model, *engine.Tokenizer) {
	t.Helper()
	m, err := engine.LoadModel(filepath.Join("..", "models", "target.bin"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "models", "tokenizer.bin"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := engine.ParseTokenizer(data, m.Config.VocabSize)
	if err != nil {
		t.Fatal(err)
	}
	return m, tok
}

// smolLM2 is SmolLM2-135M-Instruct, where the install step put it.
func smolLM2(t *testing.T) (*engine.Model, *engine.Tokenizer) {
	t.Helper()
	m, tok, err := smolLM2Bench(t)
	if err != nil {
		t.Fatal(err)
	}
	return m, tok
}

func smolLM2Bench(t testing.TB) (*engine.Model, *engine.Tokenizer, error) {
	return engine.Load(testmodel.Path(t, testmodel.SmolLM2), "")
}

// job is one generation: its prompt and settings.
type job struct {
	prompt string
	opts   decoding.Options
	delay  time.Duration // how long after the others start it joins
}

// result is what a generation gave: its tokens, their log-probabilities
// (compared bit for bit), and its text.
type result struct {
	ids  []int
	lps  []uint64
	text string
	err  error
}

// generate runs j through s, or with the default decoder when s is nil.
func generate(ctx context.Context, s *Scheduler, m *engine.Model, tok *engine.Tokenizer, j job) result {
	opts := j.opts
	if s != nil {
		seq, err := s.NewSequence()
		if err != nil {
			return result{err: err}
		}
		defer seq.Close()
		opts.Decoder = decoding.Shared{Seq: seq}
	}
	var r result
	for step, err := range decoding.Generate(ctx, m, tok, j.prompt, opts) {
		if err != nil {
			r.err = err
			return r
		}
		if step.ID != decoding.NoToken {
			r.ids = append(r.ids, step.ID)
			r.lps = append(r.lps, math.Float64bits(step.LogProb))
		}
		r.text += step.Text
	}
	return r
}

// together runs the jobs at once through one scheduler, each joining
// after its delay.
func together(t *testing.T, m *engine.Model, tok *engine.Tokenizer, cfg Config, jobs []job) ([]result, Stats) {
	t.Helper()
	s, err := New(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return atOnce(s, m, tok, jobs), s.Stats()
}

// atOnce runs the jobs at once through s, each joining after its delay.
func atOnce(s *Scheduler, m *engine.Model, tok *engine.Tokenizer, jobs []job) []result {
	out := make([]result, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(j.delay)
			out[i] = generate(context.Background(), s, m, tok, j)
		}()
	}
	wg.Wait()
	return out
}

// alone runs one job by itself through a scheduler of its own.
func alone(t *testing.T, m *engine.Model, tok *engine.Tokenizer, cfg Config, j job) result {
	t.Helper()
	s, err := New(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return generate(context.Background(), s, m, tok, j)
}

// sameResult fails unless got is want, token for token and log-probability
// bit for bit.
func sameResult(t *testing.T, what string, got, want result) {
	t.Helper()
	if got.err != nil || want.err != nil {
		t.Fatalf("%s: errors %v and %v", what, got.err, want.err)
	}
	if fmt.Sprint(got.ids) != fmt.Sprint(want.ids) {
		t.Errorf("%s: tokens %v\nwant %v (alone)", what, got.ids, want.ids)
		return
	}
	for i := range got.lps {
		if got.lps[i] != want.lps[i] {
			t.Errorf("%s: token %d's log-probability %v, alone %v: not the same bits", what, i, math.Float64frombits(got.lps[i]), math.Float64frombits(want.lps[i]))
			return
		}
	}
}

// mixedJobs are generations of different prompt lengths and limits, some
// joining late, greedy or seeded.
func mixedJobs(sample bool) []job {
	prompts := []string{
		"func (b *Buffer) Len() int {",
		"package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(",
		"// Copy copies from src to dst until either EOF is reached on src or an error occurs. It returns the number of bytes copied and the first error encountered while copying, if any.\nfunc Copy(",
		"x",
		"func Split(s, sep string) []string {\n\treturn genSplit(s, sep, 0, -1)\n}\n\n// SplitAfter slices s into all substrings after each instance of sep and returns a slice of those substrings.\n",
		"type Reader interface {",
	}
	var jobs []job
	for i, p := range prompts {
		o := decoding.Options{MaxNewTokens: 12 + 5*i}
		if sample {
			o.Temperature, o.TopP, o.Seed = 0.9, 0.95, uint64(100+i)
		}
		jobs = append(jobs, job{prompt: p, opts: o, delay: time.Duration(i%3) * 3 * time.Millisecond})
	}
	return jobs
}

// TestBatchedIsAlone: generations run together — prompts in chunks beside
// other generations' decoding steps, joining at different times — give
// each the tokens, and the log-probabilities bit for bit, it gets alone;
// greedy on SmolLM2, and seeded sampling on the course model.
func TestBatchedIsAlone(t *testing.T) {
	for _, c := range []struct {
		name   string
		load   func(*testing.T) (*engine.Model, *engine.Tokenizer)
		sample bool
	}{
		{"smollm2 greedy", smolLM2, false},
		{"course sampled", course, true},
		{"course greedy", course, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, tok := c.load(t)
			cfg := Config{Chunk: 16, StepTokens: 24}
			jobs := mixedJobs(c.sample)
			got, stats := together(t, m, tok, cfg, jobs)
			for i, j := range jobs {
				sameResult(t, fmt.Sprintf("job %d (%q)", i, j.prompt), got[i], alone(t, m, tok, cfg, j))
			}
			if stats.MostActive < 2 {
				t.Errorf("no step ran two sequences: %+v", stats)
			}
			if stats.Sequences != 0 {
				t.Errorf("%d sequences still open after every generation ended", stats.Sequences)
			}
			t.Logf("%+v", stats)
		})
	}
}

// TestSharedIsGenerate: with prompts in one chunk, a generation through
// the scheduler is Generate's own on SmolLM2, whose batched and
// one-token products are the same numbers: the same tokens, and the same
// log-probabilities bit for bit.
func TestSharedIsGenerate(t *testing.T) {
	m, tok := smolLM2(t)
	for i, j := range mixedJobs(false) {
		sameResult(t, fmt.Sprintf("job %d", i), alone(t, m, tok, Config{}, j), generate(context.Background(), nil, m, tok, j))
	}
}

// TestCancelAndClose: a generation whose context ends leaves at once and
// the others go on; closing the scheduler ends what waits with ErrClosed.
func TestCancelAndClose(t *testing.T) {
	m, tok := course(t)
	s, err := New(m, Config{Chunk: 8})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	long := job{prompt: strings.Repeat("func f() {}\n", 20), opts: decoding.Options{MaxNewTokens: 200}}
	short := job{prompt: "func (b *Buffer) Len() int {", opts: decoding.Options{MaxNewTokens: 20}}
	var wg sync.WaitGroup
	var cancelled, finished result
	wg.Add(2)
	go func() { defer wg.Done(); cancelled = generate(ctx, s, m, tok, long) }()
	go func() { defer wg.Done(); finished = generate(context.Background(), s, m, tok, short) }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	wg.Wait()
	if cancelled.err != nil || len(cancelled.ids) >= 200 {
		t.Errorf("the cancelled generation: %d tokens, error %v; want fewer than 200 and a finish, not an error", len(cancelled.ids), cancelled.err)
	}
	sameResult(t, "the generation beside a cancelled one", finished, alone(t, m, tok, Config{Chunk: 8}, short))
	if n := s.Stats().Sequences; n != 0 {
		t.Errorf("%d sequences open after both ended", n)
	}

	seq, err := s.NewSequence()
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := seq.Logits(context.Background(), []int{1, 2}); !errors.Is(err, ErrClosed) {
		t.Errorf("Logits after Close: %v; want ErrClosed", err)
	}
	if _, err := s.NewSequence(); !errors.Is(err, ErrClosed) {
		t.Errorf("NewSequence after Close: %v; want ErrClosed", err)
	}
}

// TestRefusals: what a sequence cannot run is an error naming it.
func TestRefusals(t *testing.T) {
	m, _ := course(t)
	if _, err := New(m, Config{Chunk: -1}); err == nil || !strings.Contains(err.Error(), "Chunk = -1") {
		t.Errorf("Chunk -1: %v", err)
	}
	s, err := New(m, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	seq, _ := s.NewSequence()
	defer seq.Close()
	c := m.Config
	for _, tc := range []struct {
		seq  []int
		want string
	}{
		{nil, "needs new tokens"},
		{[]int{1, c.VocabSize}, fmt.Sprintf("id %d, outside the vocabulary", c.VocabSize)},
		{make([]int, c.SeqLen+1), "does not fit the model's context"},
	} {
		if _, err := seq.Logits(context.Background(), tc.seq); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Logits(%d tokens): %v; want an error containing %q", len(tc.seq), err, tc.want)
		}
	}
}
