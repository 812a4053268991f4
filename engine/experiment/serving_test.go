package experiment

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/engine/schedule"
)

func courseModel(t *testing.T) (*engine.Model, *engine.Tokenizer) {
	t.Helper()
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	return m, tok
}

// TestTimedFigures: the waits and rates of hand-made generations.
func TestTimedFigures(t *testing.T) {
	ms := time.Millisecond
	a := Timed{Arrived: 0, Started: 10 * ms, First: 100 * ms, End: 500 * ms, IDs: []int{1, 2, 3, 4, 5}}
	b := Timed{Arrived: 50 * ms, Started: 50 * ms, First: 350 * ms, End: 700 * ms, IDs: []int{7}}
	if a.Wait() != 100*ms || b.Wait() != 300*ms {
		t.Errorf("waits %v and %v, want 100ms and 300ms", a.Wait(), b.Wait())
	}
	if got := a.DecodeRate(); math.Abs(got-10) > 1e-9 {
		t.Errorf("4 tokens after the first in 400 ms: %v tokens a second, want 10", got)
	}
	if got := b.DecodeRate(); got != 0 {
		t.Errorf("one token: rate %v, want 0", got)
	}
	gens := []Timed{a, b}
	if MeanWait(gens) != 200*ms || LongestWait(gens) != 300*ms || Makespan(gens) != 700*ms {
		t.Errorf("mean wait %v, longest %v, makespan %v; want 200ms, 300ms, 700ms", MeanWait(gens), LongestWait(gens), Makespan(gens))
	}
	if MeanWait(nil) != 0 || LongestWait(nil) != 0 || Makespan(nil) != 0 {
		t.Error("figures of no generations are not 0")
	}
}

// TestUsersRunFigures: a run's figures from hand-made counts.
func TestUsersRunFigures(t *testing.T) {
	ms := time.Millisecond
	r := UsersRun{
		Users:   2,
		Elapsed: 2 * time.Second,
		Gens: []Timed{
			{First: 0, End: 1000 * ms, IDs: make([]int, 11)}, // 10 a second
			{First: 0, End: 500 * ms, IDs: make([]int, 11)},  // 20 a second
		},
		Stats: schedule.Stats{Steps: 11, Busy: 110 * ms},
	}
	if r.Tokens() != 22 || r.Throughput() != 11 || math.Abs(r.PerUser()-15) > 1e-9 {
		t.Errorf("tokens %d, throughput %v, per user %v; want 22, 11, 15", r.Tokens(), r.Throughput(), r.PerUser())
	}
	if r.TokensPerStep() != 2 || r.StepTime() != 10*ms {
		t.Errorf("tokens a step %v, step time %v; want 2 and 10ms", r.TokensPerStep(), r.StepTime())
	}
	if got := r.WeightBytesPerToken(1000); got != 500 {
		t.Errorf("1000 weight bytes read 11 times for 22 tokens: %v a token, want 500", got)
	}
	var none UsersRun
	if none.Throughput() != 0 || none.PerUser() != 0 || none.TokensPerStep() != 0 || none.StepTime() != 0 || none.WeightBytesPerToken(1) != 0 {
		t.Error("an empty run's figures are not 0")
	}
}

// TestServe: a generation through a scheduler is the one of Generate's
// own passes (greedy, a few tokens), and its moments come in order.
func TestServe(t *testing.T) {
	m, tok := courseModel(t)
	s, err := schedule.New(m, schedule.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	opts := NoEnd(tok, decoding.Options{MaxNewTokens: 10})
	zero := time.Now()
	shared, err := Serve(context.Background(), s, m, tok, "func main() {", opts, zero)
	if err != nil {
		t.Fatal(err)
	}
	own, err := Serve(context.Background(), nil, m, tok, "func main() {", opts, zero)
	if err != nil {
		t.Fatal(err)
	}
	if len(shared.IDs) != 10 || !slices.Equal(shared.IDs, own.IDs) || shared.Text != own.Text {
		t.Errorf("through the scheduler %v %q, alone %v %q", shared.IDs, shared.Text, own.IDs, own.Text)
	}
	for _, g := range []Timed{shared, own} {
		if !(g.Arrived == g.Started && g.Started <= g.First && g.First <= g.End && g.DecodeRate() > 0) {
			t.Errorf("moments out of order: %+v", g)
		}
	}
	if own.Started < shared.End {
		t.Errorf("the second generation started at %v, before the first ended at %v", own.Started, shared.End)
	}
}

// TestUsers: n users each get their tokens, in shared steps, and a user's
// answer is the one it gets alone in a scheduler of its own.
func TestUsers(t *testing.T) {
	m, tok := courseModel(t)
	opts := NoEnd(tok, decoding.Options{MaxNewTokens: 16})
	r, err := Users(m, tok, schedule.Config{}, 3, "func main() {", opts, 2)
	if err != nil {
		t.Fatal(err)
	}
	if r.Users != 3 || len(r.Gens) != 3 || r.Tokens() != 48 {
		t.Fatalf("3 users of 16 tokens: %d users, %d generations, %d tokens", r.Users, len(r.Gens), r.Tokens())
	}
	if r.Stats.MostActive < 2 || r.Stats.Sequences != 0 || r.Throughput() <= 0 {
		t.Errorf("stats %+v, throughput %v: want steps of several sequences, none open at the end", r.Stats, r.Throughput())
	}
	if r.WeightBytesPerToken(m.WeightBytes()) >= float64(m.WeightBytes()) {
		t.Errorf("%v weight bytes a token, not below the model's %d: no step made two tokens", r.WeightBytesPerToken(m.WeightBytes()), m.WeightBytes())
	}
	alone, err := Users(m, tok, schedule.Config{}, 1, "func main() {", opts, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(alone.Gens[0].IDs, r.Gens[0].IDs) {
		t.Errorf("user 1 alone %v, beside two others %v", alone.Gens[0].IDs, r.Gens[0].IDs)
	}
	if _, err := Users(m, tok, schedule.Config{}, 0, "x", opts, 1); err == nil {
		t.Error("0 users: no error")
	}
	if _, err := Users(m, tok, schedule.Config{}, 1, "x", opts, 0); err == nil {
		t.Error("0 rounds: no error")
	}
}

// mixedJobs are a long answer, three short ones and a middling one.
func mixedJobs(tok *engine.Tokenizer) []Job {
	var jobs []Job
	for _, n := range []int{24, 2, 2, 2, 6} {
		jobs = append(jobs, Job{Prompt: "func main() {", Opts: NoEnd(tok, decoding.Options{MaxNewTokens: n, NoLogProbs: true})})
	}
	return jobs
}

// TestStaticBatches: a batch starts only after every generation of the
// one before has ended.
func TestStaticBatches(t *testing.T) {
	m, tok := courseModel(t)
	jobs := mixedJobs(tok)
	gens, st, err := StaticBatches(m, tok, schedule.Config{}, jobs, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range gens {
		if len(g.IDs) != jobs[i].Opts.MaxNewTokens || g.Arrived != 0 {
			t.Errorf("job %d: %d tokens, arrived at %v; want %d, at 0", i, len(g.IDs), g.Arrived, jobs[i].Opts.MaxNewTokens)
		}
	}
	for b := 2; b < len(gens); b += 2 {
		ended := max(gens[b-2].End, gens[b-1].End)
		for i := b; i < min(b+2, len(gens)); i++ {
			if gens[i].Started < ended {
				t.Errorf("job %d started at %v, before its batch's predecessor ended at %v", i, gens[i].Started, ended)
			}
		}
	}
	if st.Sequences != 0 || st.MostActive > 2 {
		t.Errorf("stats %+v: want no sequence open, at most 2 in a step", st)
	}
	if _, _, err := StaticBatches(m, tok, schedule.Config{}, jobs, 0); err == nil {
		t.Error("batches of 0: no error")
	}
}

// TestContinuous: at most slots generations run at once, a job takes
// the place of a short one while a long one runs on, and a job does not
// start before it arrives.
func TestContinuous(t *testing.T) {
	m, tok := courseModel(t)
	jobs := mixedJobs(tok)
	jobs[4].Arrive = 30 * time.Millisecond
	gens, _, err := Continuous(m, tok, schedule.Config{}, jobs, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range gens {
		if len(g.IDs) != jobs[i].Opts.MaxNewTokens || g.Arrived != jobs[i].Arrive || g.Started < g.Arrived {
			t.Errorf("job %d: %d tokens, arrived at %v, started at %v", i, len(g.IDs), g.Arrived, g.Started)
		}
		running := 0
		for j, h := range gens {
			if j != i && h.Started <= g.Started && g.Started < h.End {
				running++
			}
		}
		if running > 1 {
			t.Errorf("job %d started at %v beside %d running generations; 2 places", i, g.Started, running)
		}
	}
	if gens[2].Started >= gens[0].End {
		t.Errorf("job 2 started at %v, after the long job 0 ended at %v: it did not take job 1's place", gens[2].Started, gens[0].End)
	}
	if _, _, err := Continuous(m, tok, schedule.Config{}, jobs, 0); err == nil {
		t.Error("0 slots: no error")
	}
}

// TestRecord: StateSequence's generation is Generate's own, with a copy
// of the logits of each step; through a scheduler, the logits alone and
// beside busy generations are the same bits.
func TestRecord(t *testing.T) {
	m, tok := courseModel(t)
	opts := NoEnd(tok, decoding.Options{MaxNewTokens: 12})
	got, err := Record(context.Background(), StateSequence(m), m, tok, "func main() {", opts)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for step, err := range decoding.Generate(context.Background(), m, tok, "func main() {", opts) {
		if err != nil {
			t.Fatal(err)
		}
		if step.ID != decoding.NoToken {
			want = append(want, step.ID)
		}
	}
	if !slices.Equal(got.IDs, want) || len(got.Steps) != len(got.IDs) {
		t.Fatalf("StateSequence: %v with %d steps of logits; Generate %v", got.IDs, len(got.Steps), want)
	}
	for i, l := range got.Steps {
		// The model's logits, before the sampler's stages: the greedy
		// token is their argmax once the end tokens are banned.
		l = slices.Clone(l)
		decoding.ApplyLogitBias(l, opts.LogitBias)
		if decoding.Argmax(l) != got.IDs[i] {
			t.Errorf("step %d: the logits' argmax %d, the greedy token %d", i, decoding.Argmax(l), got.IDs[i])
		}
	}
	ids, _ := tok.Encode("func main() {", true, false)
	first, err := m.NewState().Prefill(ids, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(first, got.Steps[0]) {
		t.Error("the first step's logits are not State.Prefill's of the prompt")
	}

	run := func(others int) Logits {
		s, err := schedule.New(m, schedule.Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		wait := Busy(s, m, tok, others, 40)
		seq, err := s.NewSequence()
		if err != nil {
			t.Fatal(err)
		}
		defer seq.Close()
		l, err := Record(context.Background(), seq, m, tok, "func main() {", opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := wait(); err != nil {
			t.Fatal(err)
		}
		if others > 0 && s.Stats().MostActive < 2 {
			t.Errorf("beside %d busy generations, no step ran two", others)
		}
		return l
	}
	d := CompareLogits(run(0), run(3))
	if d.Different != 0 || !d.SameIDs || d.Steps != 12 || d.Logits != 12*m.Config.VocabSize {
		t.Errorf("alone and beside 3: %+v; want the same bits, 12 steps", d)
	}
	if _, err := StateSequence(m).Logits(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "already ran") {
		t.Errorf("no new tokens: %v", err)
	}
}

// TestCompareLogits: differences counted bit for bit, up to the first
// different token, and the nearest tie.
func TestCompareLogits(t *testing.T) {
	a := Logits{IDs: []int{0, 1, 2}, Steps: [][]float32{{3, 1, 0}, {0, 2, 1.5}, {0, 0, 9}}}
	b := Logits{IDs: []int{0, 2, 2}, Steps: [][]float32{{3, 1, 0}, {0, 2, 1.25}, {5, 5, 5}}}
	d := CompareLogits(a, b)
	want := LogitsDiff{Steps: 2, Logits: 6, Different: 1, Largest: 0.25, SameIDs: false, Gap: 0.5, GapStep: 1}
	if d != want {
		t.Errorf("CompareLogits = %+v\nwant %+v", d, want)
	}
	negZero := float32(math.Copysign(0, -1))
	if d := CompareLogits(Logits{IDs: []int{0}, Steps: [][]float32{{0, 1}}}, Logits{IDs: []int{0}, Steps: [][]float32{{negZero, 1}}}); d.Different != 1 {
		t.Errorf("0 and -0 differ in their bits: %+v", d)
	}
	if g := TopGap([]float32{1, 4, 4, 2}); g != 0 {
		t.Errorf("TopGap of a tie = %v", g)
	}
	if g := TopGap([]float32{-1, -3}); g != 2 {
		t.Errorf("TopGap([-1 -3]) = %v", g)
	}
}

// TestChatAnswer: the first choice's text, or the API's error.
func TestChatAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case !strings.HasSuffix(r.URL.Path, "/v1/chat/completions") || r.Method != "POST":
			http.NotFound(w, r)
		case strings.HasPrefix(r.URL.Path, "/bad/"):
			w.WriteHeader(400)
			w.Write([]byte(`{"error": {"message": "top_p 1.5 is out of range"}}`))
		case strings.HasPrefix(r.URL.Path, "/empty/"):
			w.Write([]byte(`{"choices": []}`))
		default:
			w.Write([]byte(`{"choices": [{"message": {"role": "assistant", "content": "Paris."}}]}`))
		}
	}))
	defer srv.Close()
	if got, err := ChatAnswer(context.Background(), srv.URL+"/v1", map[string]any{"model": "m"}); got != "Paris." || err != nil {
		t.Errorf("ChatAnswer = %q, %v; want Paris.", got, err)
	}
	if _, err := ChatAnswer(context.Background(), srv.URL+"/bad/v1", nil); err == nil || !strings.Contains(err.Error(), "HTTP 400: top_p 1.5") {
		t.Errorf("a 400: %v", err)
	}
	if _, err := ChatAnswer(context.Background(), srv.URL+"/empty/v1", nil); err == nil || !strings.Contains(err.Error(), "no choices") {
		t.Errorf("no choices: %v", err)
	}
}
