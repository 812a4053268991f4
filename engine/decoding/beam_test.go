package decoding

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
)

// Tokens of the hand-built examples.
const (
	tEnd = 0 // ends the text
	tA   = 1
	tB   = 2
	tC   = 3 // also the prompt
)

func isTEnd(id int) bool { return id == tEnd }

// greedyVsBeamLM is the textbook tree where greedy goes wrong:
//
//	after C:   A 0.5   B 0.4   C 0.1
//	after CA:  A 0.4   B 0.3   C 0.3
//	after CB:  A 0.9   B 0.05  C 0.05
//
// Greedy takes A then A (0.5 × 0.4 = 0.20); the best two-token sequence is
// B then A (0.4 × 0.9 = 0.36).
func greedyVsBeamLM() *tableLM {
	table := map[string][]float64{
		key([]int{tC}):         {0, 0.5, 0.4, 0.1},
		key([]int{tC, tA}):     {0, 0.4, 0.3, 0.3},
		key([]int{tC, tB}):     {0, 0.9, 0.05, 0.05},
		key([]int{tC, tC}):     {0, 0.4, 0.3, 0.3},
		key([]int{tC, tA, tA}): {0, 0.4, 0.3, 0.3},
	}
	return &tableLM{vocab: 4, probs: func(p []int) []float64 { return table[key(p)] }}
}

func TestBeamFindsWhatGreedyMisses(t *testing.T) {
	lm := greedyVsBeamLM()
	greedy := collect(t, sampleLoop(lm, []int{tC}, 2, Argmax, nil))
	sameTokens(t, "greedy", greedy, []int{tA, tA})

	res, err := beamSearch(lm, []int{tC}, Options{MaxNewTokens: 2, Decoder: Beam{Width: 2}})
	if err != nil {
		t.Fatal(err)
	}
	sameTokens(t, "beam", res.Best.Tokens, []int{tB, tA})
	if want := math.Log(0.36); math.Abs(res.Best.CumLogProb-want) > 1e-6 {
		t.Errorf("best log-probability %v, want log 0.36 = %v", res.Best.CumLogProb, want)
	}
	if len(res.Hypotheses) != 2 {
		t.Fatalf("%d hypotheses, want 2", len(res.Hypotheses))
	}
	sameTokens(t, "runner-up", res.Hypotheses[1].Tokens, []int{tA, tA})

	// The tree: the root, its two kept children A and B, then the two best
	// children of each: AA kept, AB pruned (AB and AC tie; the lower id
	// comes first), BA kept, BB pruned.
	type nodeWant struct {
		parent, token int
		p             float64
		status        BeamStatus
	}
	want := []nodeWant{
		{-1, -1, 1, BeamKept},
		{0, tA, 0.5, BeamKept}, {0, tB, 0.4, BeamKept},
		{1, tA, 0.2, BeamFinished}, {1, tB, 0.15, BeamPruned},
		{2, tA, 0.36, BeamFinished}, {2, tB, 0.02, BeamPruned},
	}
	if len(res.Tree) != len(want) {
		t.Fatalf("tree has %d nodes, want %d: %+v", len(res.Tree), len(want), res.Tree)
	}
	for i, w := range want {
		n := res.Tree[i]
		if n.Parent != w.parent || n.Token != w.token || n.Status != w.status || math.Abs(n.CumLogProb-math.Log(w.p)) > 1e-6 {
			t.Errorf("node %d = %+v, want parent %d token %d cumulative log %v status %s", i, n, w.parent, w.token, w.p, w.status)
		}
	}
}

// lengthLM has a short answer (end right away, 0.3) and a long one
// (A A end: 0.5 × 0.7 × 0.7 = 0.245).
func lengthLM() *tableLM {
	table := map[string][]float64{
		key([]int{tC}):         {0.3, 0.5, 0.2, 0},
		key([]int{tC, tA}):     {0.1, 0.7, 0.2, 0},
		key([]int{tC, tA, tA}): {0.7, 0.2, 0.1, 0},
	}
	other := []float64{0.2, 0.4, 0.4, 0}
	return &tableLM{vocab: 4, probs: func(p []int) []float64 {
		if d, ok := table[key(p)]; ok {
			return d
		}
		return other
	}}
}

func TestBeamLengthPenalty(t *testing.T) {
	// Unnormalised, the short answer wins: log 0.3 > log 0.245. With α = 1
	// the long one is divided by ((5+3)/6)^1 = 4/3 and the short one by 1:
	// log(0.245)·3/4 = -1.054 > log 0.3 = -1.204.
	for _, c := range []struct {
		alpha float64
		want  []int
		score float64
	}{
		{0, []int{tEnd}, math.Log(0.3)},
		{1, []int{tA, tA, tEnd}, math.Log(0.245) * 3 / 4},
	} {
		res, err := beamSearch(lengthLM(), []int{tC}, Options{MaxNewTokens: 3, IsEnd: isTEnd, Decoder: Beam{Width: 2, LengthPenalty: c.alpha}})
		if err != nil {
			t.Fatal(err)
		}
		sameTokens(t, "best", res.Best.Tokens, c.want)
		if !res.Best.Ended || math.Abs(res.Best.Score-c.score) > 1e-6 {
			t.Errorf("α=%v: best %+v, want ended with score %v", c.alpha, res.Best, c.score)
		}
	}
}

func TestBeamStopsWhenNothingCanBeatTheFinished(t *testing.T) {
	// After C the end token has probability 0.9: with width 1 it finishes
	// at once, and the live beam (log 0.1 at best) can never catch up, so
	// the search asks the model only once although 50 tokens are allowed.
	lm := fixedLM(0.9, 0.1, 0, 0)
	res, err := beamSearch(lm, []int{tC}, Options{MaxNewTokens: 50, IsEnd: isTEnd, Decoder: Beam{Width: 1}})
	if err != nil {
		t.Fatal(err)
	}
	sameTokens(t, "best", res.Best.Tokens, []int{tEnd})
	if res.Passes != 1 || lm.calls != 1 {
		t.Errorf("asked the model %d times (counted %d), want 1", res.Passes, lm.calls)
	}
}

func TestBeamWideEnoughIsExhaustive(t *testing.T) {
	// With width V^(depth-1) nothing is ever pruned before the last step,
	// so beam search must return exactly the most probable sequences,
	// found here by listing all V^depth of them.
	const vocab, depth = 5, 3
	r := rand.New(rand.NewPCG(11, 12))
	table := map[string][]float64{}
	lm := &tableLM{vocab: vocab, probs: func(p []int) []float64 {
		k := key(p)
		if d, ok := table[k]; ok {
			return d
		}
		d := make([]float64, vocab)
		var sum float64
		for i := range d {
			d[i] = r.Float64() + 0.01
			sum += d[i]
		}
		for i := range d {
			d[i] /= sum
		}
		table[k] = d
		return d
	}}
	width := vocab * vocab
	res, err := beamSearch(lm, []int{0}, Options{MaxNewTokens: depth, Decoder: Beam{Width: width}})
	if err != nil {
		t.Fatal(err)
	}
	type seq struct {
		tokens []int
		logp   float64
	}
	var all []seq
	var walk func(prefix []int, logp float64)
	walk = func(prefix []int, logp float64) {
		if len(prefix) == depth+1 {
			all = append(all, seq{append([]int(nil), prefix[1:]...), logp})
			return
		}
		p := lm.probs(prefix)
		for id := range vocab {
			walk(append(prefix, id), logp+math.Log(p[id]))
		}
	}
	walk([]int{0}, 0)
	best := 0
	for i, s := range all {
		if s.logp > all[best].logp {
			best = i
		}
	}
	sameTokens(t, "beam best vs exhaustive best", res.Best.Tokens, all[best].tokens)
	if math.Abs(res.Best.CumLogProb-all[best].logp) > 1e-5 {
		t.Errorf("best log-probability %v, exhaustive says %v", res.Best.CumLogProb, all[best].logp)
	}
}

func TestBeamWidthOneIsGreedyOnStories260K(t *testing.T) {
	m, tok := loadReference(t)
	prompt, err := tok.Encode("The cat", true, false)
	if err != nil {
		t.Fatal(err)
	}
	want := greedyByForward(t, m, prompt, 40, tok.IsEnd)
	res, err := beamSearch(engine.NewModelLM(m, 2), prompt, Options{MaxNewTokens: 40, IsEnd: tok.IsEnd, Decoder: Beam{Width: 1, Text: tok.Decode}})
	if err != nil {
		t.Fatal(err)
	}
	sameTokens(t, "width-1 beam vs greedy", res.Best.Tokens, want)
}

func TestBeamScoresAreTheModelsLogProbs(t *testing.T) {
	// Every hypothesis of a width-3 search on the real model must carry
	// the log-probability that plain one-token-at-a-time decoding gives its
	// tokens, although the adapter shares and copies caches between beams.
	m, tok := loadReference(t)
	prompt, err := tok.Encode("Lily", true, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := beamSearch(engine.NewModelLM(m, 6), prompt, Options{MaxNewTokens: 12, IsEnd: tok.IsEnd, Decoder: Beam{Width: 3, Text: tok.Decode}})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hypotheses {
		seq := append(append([]int(nil), prompt...), h.Tokens...)
		st := m.NewState()
		var logp float64
		for pos := range len(seq) - 1 {
			logits, err := st.Forward(seq[pos], pos)
			if err != nil {
				t.Fatal(err)
			}
			if pos >= len(prompt)-1 {
				logp += LogSoftmax(logits)[seq[pos+1]]
			}
		}
		if math.Abs(logp-h.CumLogProb) > 1e-3 {
			t.Errorf("hypothesis %q: search says log-probability %v, decoding says %v", tok.DecodeAll(h.Tokens), h.CumLogProb, logp)
		}
	}
	var text strings.Builder
	for n := res.Best.Node; n > 0; n = res.Tree[n].Parent {
		text.WriteString(res.Tree[n].Text + "|")
	}
	if text.Len() == 0 {
		t.Error("tree nodes carry no text")
	}
}

func TestBeamRejectsBadSettings(t *testing.T) {
	lm := fixedLM(0.5, 0.5)
	for _, c := range []struct {
		prompt []int
		opts   Options
		want   string
	}{
		{[]int{1}, Options{MaxNewTokens: 5, Decoder: Beam{Width: 0}}, "Decoder.Width = 0: beam width must be between 1 and 100"},
		{[]int{1}, Options{MaxNewTokens: 5, Decoder: Beam{Width: -3}}, "Decoder.Width = -3: beam width must be between 1 and 100"},
		{[]int{1}, Options{MaxNewTokens: 5, Decoder: Beam{Width: 1000}}, "Decoder.Width = 1000: beam width must be between 1 and 100"},
		{[]int{1}, Options{MaxNewTokens: -1, Decoder: Beam{Width: 2}}, "MaxNewTokens = -1: must be 0 (no limit) or positive"},
		{[]int{1}, Options{MaxNewTokens: 5, Decoder: Beam{Width: 2, LengthPenalty: math.NaN()}}, "Decoder.LengthPenalty = NaN: must be a finite number"},
		{[]int{1}, Options{MaxNewTokens: 5, Temperature: 0.5, Decoder: Beam{Width: 2}}, "Temperature = 0.5: beam search keeps the likeliest continuations by the model's own log-probabilities: it must be off"},
		{nil, Options{MaxNewTokens: 5, Decoder: Beam{Width: 2}}, "empty prompt: need at least one token (BOS)"},
	} {
		_, err := beamSearch(lm, c.prompt, c.opts)
		if err == nil || err.Error() != c.want {
			t.Errorf("%+v: got error %v, want %q", c.opts, err, c.want)
		}
	}
	if lm.calls != 0 {
		t.Errorf("the model was asked %d times before the settings were checked", lm.calls)
	}
	m, _ := loadReference(t)
	_, err := beamSearch(engine.NewModelLM(m, 1), make([]int, 512), Options{MaxNewTokens: 5, Decoder: Beam{Width: 2}})
	if want := "prompt of 512 tokens leaves no room in the model's context of 512 tokens"; err == nil || err.Error() != want {
		t.Errorf("prompt as long as the context: got error %v, want %q", err, want)
	}
}

// cancelAfterLM cancels a context after its n-th question.
type cancelAfterLM struct {
	LM
	n      int
	cancel context.CancelFunc
}

func (m *cancelAfterLM) NextLogits(prefix []int, n int) ([][]float32, error) {
	if m.n--; m.n == 0 {
		m.cancel()
	}
	return m.LM.NextLogits(prefix, n)
}

// TestBeamSearchContext stops a search through its context: before the
// first step there is nothing to return; later, the best so far comes back
// with the context's error, cut short of the length limit.
func TestBeamSearchContext(t *testing.T) {
	uniform := &tableLM{vocab: 4, probs: func([]int) []float64 { return []float64{0.1, 0.3, 0.3, 0.3} }}
	opts := Options{MaxNewTokens: 50, IsEnd: isTEnd, Decoder: Beam{Width: 2}}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res, err := beamSearchContext(ctx, uniform, []int{tC}, opts); res != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before the start: result %v, error %v", res, err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	lm := &cancelAfterLM{LM: uniform, n: 5, cancel: cancel} // 1 question at depth 1, 2 per depth after
	res, err := beamSearchContext(ctx, lm, []int{tC}, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if res == nil || len(res.Hypotheses) != 2 {
		t.Fatalf("result %+v, want the two live beams as hypotheses", res)
	}
	if got := len(res.Best.Tokens); got != 3 || res.Best.Ended {
		t.Errorf("best hypothesis has %d tokens (ended %v), want 3 unfinished ones", got, res.Best.Ended)
	}

	// Without cancellation the same search runs to the length limit.
	res, err = beamSearchContext(context.Background(), uniform, []int{tC}, opts)
	if err != nil || len(res.Best.Tokens) != 50 {
		t.Fatalf("uncancelled: %d tokens, error %v", len(res.Best.Tokens), err)
	}
}
