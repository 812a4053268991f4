package decoding

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"gonum.org/v1/gonum/stat/distuv"
)

func TestPromptLookupProposes(t *testing.T) {
	seq := []int{5, 1, 2, 3, 9, 1, 2, 3}
	isEnd := func(id int) bool { return id == 9 }
	for _, c := range []struct {
		name   string
		lookup PromptLookup
		seq    []int
		max    int
		isEnd  func(int) bool
		want   []int
	}{
		// The last 3 tokens, 1 2 3, occurred at 1; 9 1 2 3 followed.
		{"trigram, cut at max", PromptLookup{}, seq, 2, nil, []int{9, 1}},
		{"trigram, up to the end of the text", PromptLookup{}, seq, 10, nil, []int{9, 1, 2, 3}},
		{"stops after an end token", PromptLookup{}, seq, 10, isEnd, []int{9}},
		// 4 2 3 never occurred; 2 3 did, at 2 and 6: the latest before the
		// tail is at 2.
		{"falls back to a bigram", PromptLookup{}, []int{2, 3, 7, 2, 3, 8, 4, 2, 3}, 3, nil, []int{8, 4, 2}},
		{"the latest occurrence wins", PromptLookup{MaxN: 1}, []int{3, 1, 3, 2, 3}, 1, nil, []int{2}},
		{"no shorter n-gram than MinN", PromptLookup{MinN: 3}, []int{2, 3, 7, 4, 2, 3}, 3, nil, nil},
		{"nothing repeats", PromptLookup{}, []int{1, 2, 3, 4}, 4, nil, nil},
		{"a one-token text", PromptLookup{}, []int{1}, 4, nil, nil},
	} {
		p, err := c.lookup.Draft(DraftRequest{Seq: c.seq, Max: c.max, IsEnd: c.isEnd})
		if err != nil || !slices.Equal(p.Tokens, c.want) || p.Q != nil || p.Passes != 0 {
			t.Errorf("%s: %v after %v proposes %v, Q %v, %d passes, error %v; want %v, point masses, no pass", c.name, c.lookup, c.seq, p.Tokens, p.Q, p.Passes, err, c.want)
		}
	}
	if _, err := (PromptLookup{MaxN: 2, MinN: 3}).Draft(DraftRequest{Seq: seq, Max: 2}); err == nil || !strings.Contains(err.Error(), "2 down to 3") {
		t.Errorf("PromptLookup{MaxN: 2, MinN: 3} error %v; want one naming both sizes", err)
	}
	_, err := speculativeWith(fixedLM(0.5, 0.5), PromptLookup{MinN: -1}, []int{0}, Options{Decoder: Speculation{Gamma: 2}}, nil)
	if err == nil || !strings.Contains(err.Error(), "-1") {
		t.Errorf("Speculative with PromptLookup{MinN: -1}: error %v; want one naming -1", err)
	}
}

// Greedy speculative decoding with prompt lookup is the target's greedy
// decoding, token for token, on the reference model, the course's model
// and random-weight models; and on text that repeats itself it accepts
// proposals.
func TestPromptLookupGreedyIsTargetGreedy(t *testing.T) {
	type model struct {
		name   string
		m      *engine.Model
		prompt []int
	}
	ref, tok := loadReference(t)
	refPrompt, err := tok.Encode("Once upon a time, there was a little girl. Once upon a time", true, false)
	if err != nil {
		t.Fatal(err)
	}
	course, ctok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	coursePrompt, err := ctok.Encode("func add(a, b int) int {\n\treturn a + b\n}\n\nfunc add(", true, false)
	if err != nil {
		t.Fatal(err)
	}
	small := engine.Config{Dim: 32, HiddenDim: 64, NLayers: 2, NHeads: 4, NKVHeads: 2, VocabSize: 12, SeqLen: 64}
	models := []model{
		{"reference", ref, refPrompt},
		{"course", course, coursePrompt},
		// Few tokens and random weights: the greedy text soon loops,
		// and lookup finds the loop.
		{"random", randomModel(small, 3), []int{1, 4, 7, 4, 7}},
		{"noisy", noisyModel(small, 4, 0.3), []int{1, 2, 3}},
	}
	for _, c := range models {
		n := min(80, c.m.Config.SeqLen-len(c.prompt))
		want := greedyByForward(t, c.m, c.prompt, n, func(int) bool { return false })
		for _, gamma := range []int{1, 3, 8} {
			tl := engine.NewModelLM(c.m, 1)
			run, err := speculativeWith(tl, PromptLookup{}, c.prompt, Options{MaxNewTokens: n, Decoder: Speculation{Gamma: gamma}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(run.Tokens, want) {
				t.Errorf("%s, γ=%d: prompt lookup gave %v;\nplain greedy %v", c.name, gamma, run.Tokens, want)
			}
			// Each round is one target pass and adds its accepted
			// proposals and one token of the target's own.
			if run.Accepted+run.TargetPasses != len(run.Tokens) || int64(run.TargetPasses) != tl.Passes || run.DraftPasses != 0 {
				t.Errorf("%s, γ=%d: %d accepted + %d target passes (the model counted %d) for %d tokens, %d draft passes", c.name, gamma, run.Accepted, run.TargetPasses, tl.Passes, len(run.Tokens), run.DraftPasses)
			}
			if run.Accepted == 0 {
				t.Errorf("%s, γ=%d: no proposal accepted on text that repeats itself (%d drafted)", c.name, gamma, run.Drafted)
			}
			t.Logf("%s, γ=%d: %d of %d proposals accepted, %.2f tokens per target pass", c.name, gamma, run.Accepted, run.Drafted, run.TokensPerTargetPass())
		}
	}
}

// fixedDrafter always proposes the same token, chosen outright.
type fixedDrafter int

func (f fixedDrafter) Draft(r DraftRequest) (Proposal, error) {
	p := Proposal{}
	for range r.Max {
		p.Tokens = append(p.Tokens, int(f))
	}
	return p, nil
}

// A drafter that chooses its tokens outright is a point mass q = δx: the
// target accepts x with probability p(x) and otherwise draws from p
// without x, so the tokens still follow p exactly.
func TestPointMassDraftsFollowTheTarget(t *testing.T) {
	p := []float64{0.1, 0.2, 0.3, 0.4}
	const n = 40000
	run, err := speculativeWith(fixedLM(p...), fixedDrafter(1), []int{0},
		Options{MaxNewTokens: n, Temperature: 1, Seed: 42, Decoder: Speculation{Gamma: 3}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, len(p))
	for _, id := range run.Tokens {
		counts[id]++
	}
	if stat, pv := chiSquareP(counts, p, len(p)-1); pv < falseFailureRate {
		t.Errorf("samples with a point-mass drafter do not follow the target: counts %v, chi-square %.1f, p-value %.2g", counts, stat, pv)
	}
	// Control: accepting every proposal would give token 1 far more often.
	biased := []float64{0.05, 0.6, 0.15, 0.2}
	if _, pb := chiSquareP(counts, biased, len(p)-1); pb >= falseFailureRate {
		t.Errorf("the test cannot tell a biased distribution from the target (p-value %.2g)", pb)
	}
	// The target accepts token 1 with probability p(1) = 0.2.
	if a := run.AcceptanceRate(); math.Abs(a-0.2) > 0.02 {
		t.Errorf("acceptance rate %.3f, expected about p(1) = 0.2", a)
	}
	if run.DraftPasses != 0 || run.Drafted < n/4 {
		t.Errorf("%d draft passes, %d drafted; want none and many", run.DraftPasses, run.Drafted)
	}
}

// Prompt lookup on sampled text proposes what followed the last token
// before; the transitions still follow the target's table.
func TestPromptLookupSamplesFollowTheTargetInContext(t *testing.T) {
	target := [][]float64{{0.6, 0.3, 0.1}, {0.1, 0.1, 0.8}, {0.3, 0.4, 0.3}}
	const n = 60000
	run, err := speculativeWith(markovLM(target), PromptLookup{MaxN: 2}, []int{0},
		Options{MaxNewTokens: n, Temperature: 1, Seed: 7, Decoder: Speculation{Gamma: 4}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	counts := make([][]int, 3)
	for i := range counts {
		counts[i] = make([]int, 3)
	}
	prev := 0
	for _, id := range run.Tokens {
		counts[prev][id]++
		prev = id
	}
	var stat float64
	for a := range counts {
		s, _ := chiSquareP(counts[a], target[a], 2)
		stat += s
	}
	if pv := (distuv.ChiSquared{K: 6}).Survival(stat); pv < falseFailureRate {
		t.Errorf("transitions do not follow the target: chi-square %.1f on 6 degrees of freedom, p-value %.2g", stat, pv)
	}
	if run.Accepted == 0 || run.Rejected == 0 {
		t.Errorf("%d accepted, %d rejected: want both to happen", run.Accepted, run.Rejected)
	}
}

// A drafter that breaks its contract is an error that names the problem.
type badDrafter Proposal

func (b badDrafter) Draft(DraftRequest) (Proposal, error) { return Proposal(b), nil }

func TestSpeculativeRefusesBadProposals(t *testing.T) {
	for _, c := range []struct {
		prop Proposal
		want string
	}{
		{Proposal{Tokens: []int{0, 0, 0}}, "proposed 3 tokens when asked for at most 2"},
		{Proposal{Tokens: []int{7}}, "token id 7, outside the vocabulary (0..1)"},
		{Proposal{Tokens: []int{1}, Q: [][]float64{{1}}}, "1 probabilities for a vocabulary of 2"},
	} {
		_, err := speculativeWith(fixedLM(0.5, 0.5), badDrafter(c.prop), []int{0}, Options{MaxNewTokens: 5, Temperature: 1, Decoder: Speculation{Gamma: 2}}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("proposal %+v: error %v; want %q", c.prop, err, c.want)
		}
	}
	_, err := speculativeWith(fixedLM(0.5, 0.5), nil, []int{0}, Options{Decoder: Speculation{Gamma: 2}}, nil)
	if err == nil || !strings.Contains(err.Error(), "needs a Drafter") {
		t.Errorf("nil drafter: error %v", err)
	}
}

// Every decoder in Generate gives greedy decoding's text where it should:
// a beam of width 1, speculative decoding with either drafter, and
// decoding without the cache; and a decoder that cannot honour a setting
// refuses it.
func TestGenerateDecoders(t *testing.T) {
	m, tok := loadReference(t)
	draft := perturbedModel(m, 0.05, 3)
	const prompt = "Once upon a time, there was a little girl named Lily. Lily"
	greedy := streamedText(runGenerate(t, context.Background(), m, tok, prompt, Options{MaxNewTokens: 60}))
	for _, dec := range []Decoder{
		Beam{Width: 1},
		Speculation{Drafter: PromptLookup{}, Gamma: 4},
		Speculation{Drafter: DraftLM{engine.NewModelLM(draft, 1)}, Gamma: 3},
		NoCache{},
	} {
		steps := runGenerate(t, context.Background(), m, tok, prompt, Options{MaxNewTokens: 60, Decoder: dec})
		last := steps[len(steps)-1]
		if got := streamedText(steps); got != greedy || last.Finish != FinishLength || last.Stats.GeneratedTokens != 60 {
			t.Errorf("%T %+v: %q, finish %q;\ngreedy: %q", dec, dec, got, last.Finish, greedy)
		}
		switch dec.(type) {
		case Beam:
			if res, ok := last.Stats.Report.(*BeamResult); !ok || res.Passes == 0 {
				t.Errorf("beam: the last step's Stats.Report is %+v", last.Stats.Report)
			}
		case Speculation:
			if s, ok := last.Stats.Report.(*SpeculativeStats); !ok || s.TargetPasses >= 60 || len(s.Tokens) != 60 {
				t.Errorf("speculative: the last step's Stats.Report is %+v; want fewer than 60 target passes for 60 tokens", last.Stats.Report)
			}
		}
	}
	// The stop sequences apply to every decoder's text.
	want := streamedText(runGenerate(t, context.Background(), m, tok, prompt, Options{MaxNewTokens: 60, Stop: []string{"."}}))
	for _, dec := range []Decoder{Beam{Width: 2}, Speculation{Drafter: PromptLookup{}, Gamma: 4}} {
		steps := runGenerate(t, context.Background(), m, tok, prompt, Options{MaxNewTokens: 60, Stop: []string{"."}, Decoder: dec})
		if last := steps[len(steps)-1]; last.Finish != FinishStop || strings.Contains(streamedText(steps), ".") {
			t.Errorf("%T with a stop sequence: %q, finish %q", dec, streamedText(steps), last.Finish)
		}
		if _, ok := dec.(Speculation); ok && streamedText(steps) != want {
			t.Errorf("speculative with a stop sequence: %q; greedy %q", streamedText(steps), want)
		}
	}
	for _, c := range []struct {
		opts    Options
		setting string
	}{
		{Options{Temperature: 0.7, Decoder: Beam{Width: 2}}, "Temperature"},
		{Options{TopP: 0.9, Decoder: Beam{Width: 2}}, "TopP"},
		{Options{Decoder: Beam{Width: 0}}, "Decoder.Width"},
		{Options{Temperature: 1, TopK: 5, Decoder: Speculation{Drafter: PromptLookup{}, Gamma: 2}}, "TopK"},
		{Options{Decoder: Speculation{Drafter: PromptLookup{}}}, "Decoder.Gamma"},
		{Options{Decoder: Speculation{Gamma: 2}}, "Decoder.Drafter"},
		{Options{TopP: 0.9, Decoder: Pick(Argmax)}, "TopP"},
	} {
		var se *SettingError
		if err := c.opts.Validate(m.Config.VocabSize); !errors.As(err, &se) || se.Setting != c.setting {
			t.Errorf("Validate(%+v) = %v; want a SettingError for %s", c.opts, err, c.setting)
		}
	}
}

// Beam search yields a token as soon as every live beam and the best
// finished hypothesis share it, long before the search ends.
func TestBeamStreamsSharedTokens(t *testing.T) {
	// After 0 the model is sure of 1, then of 2; later every token is as
	// likely as the others.
	lm := &tableLM{vocab: 4, probs: func(prefix []int) []float64 {
		switch len(prefix) {
		case 1:
			return []float64{0, 1, 0, 0}
		case 2:
			return []float64{0, 0, 1, 0}
		}
		return []float64{0.25, 0.25, 0.25, 0.25}
	}}
	var asked, ids []int
	for s, err := range Decode(context.Background(), lm, []int{0}, Options{MaxNewTokens: 8, Decoder: Beam{Width: 2}}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
		asked = append(asked, lm.calls)
		if s.Finish == "" {
			continue
		}
		if res := s.Stats.Report.(*BeamResult); !slices.Equal(ids, res.Best.Tokens) || s.Finish != FinishLength {
			t.Errorf("streamed %v, finish %q; the best hypothesis is %v", ids, s.Finish, res.Best.Tokens)
		}
	}
	// Worked by hand: depth 1 asks once (the root) and keeps [1] and an
	// impossible beam; depth 2 asks twice and keeps [1 2] and [1 x] (ties
	// keep the first beam's proposals first), which share 1: yielded after
	// 3 questions. Every later depth asks twice and keeps two children of
	// the first beam, which share everything but their last token: one
	// more token each time. The last depth's beams differ in their last
	// token only, which comes when the search ends.
	if want := []int{3, 5, 7, 9, 11, 13, 15, 15}; !slices.Equal(asked, want) {
		t.Errorf("questions asked by the time each token was yielded: %v; want %v", asked, want)
	}
}

// Decode without a Decoder is greedy at temperature 0, as Pick(Argmax) is.
func TestDecodeDefaultsToArgmax(t *testing.T) {
	lm := fixedLM(0.1, 0.6, 0.3)
	var ids []int
	for s, err := range Decode(context.Background(), lm, []int{0}, Options{MaxNewTokens: 3}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
		if want := math.Log(0.6); math.Abs(s.LogProb-want) > 1e-6 {
			t.Errorf("step %+v: log-probability %v; want log 0.6 = %v", s, s.LogProb, want)
		}
	}
	if !slices.Equal(ids, []int{1, 1, 1}) {
		t.Errorf("Decode without a Decoder gave %v; want the argmax 1, three times", ids)
	}
}
