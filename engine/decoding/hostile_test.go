//go:build unix

package decoding

// The tests in this file feed the engine what a hostile user would: headers
// that ask for absurd memory, settings that overflow float32, weights and
// logits that are not numbers, nil arguments, named pipes. Each class is a
// table; every case must end in an error that says what was wrong —
// never a crash, a hang, or a plausible-looking answer.
//
// They run as subtests of TestUnderMemoryLimit, in a child process, whose data
// segment is capped at hostileLimit: an input that makes the engine
// allocate without bound kills the child ("out of memory") and fails the
// test, instead of taking the machine's memory.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/limittest"
)

func TestMain(m *testing.M) { limittest.Main(m, nil) }

// hostileLimit is the memory the hostile tests may use: far below any of
// the allocations they provoke, far above what the engine needs to refuse
// them.
const hostileLimit = 768 << 20

// TestUnderMemoryLimit runs every hostile case, each a subtest, in a
// child process capped at hostileLimit.
func TestUnderMemoryLimit(t *testing.T) {
	limittest.Run(t, hostileLimit, []limittest.Case{
		{Name: "Memory", Test: hostileMemory},
		{Name: "Settings", Test: hostileSettings},
		{Name: "Logits", Test: hostileLogits},
		{Name: "Weights", Test: hostileWeights},
		{Name: "API", Test: hostileAPI},
		{Name: "CancelledPrefill", Test: hostileCancelledPrefill},
		{Name: "Trace", Test: hostileTrace},
		{Name: "BeamCancel", Test: hostileBeamCancel},
	})
}

// deepModel is a model whose file is small (12 MB) but whose header claims
// a context of 2^20 tokens over 256 layers: its full KV cache would be
// 2 × 256 × 2^20 × 32 × 4 bytes = 68.7 GB.
func deepModel(t *testing.T) (*engine.Model, *engine.Tokenizer) {
	t.Helper()
	c := engine.Config{Dim: 32, HiddenDim: 2, NLayers: 256, NHeads: 16, NKVHeads: 16, VocabSize: 4, SeqLen: 1 << 20, SharedClassifier: true}
	m, err := engine.ParseModel(encodeModel(t, randomModel(c, 3)))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := engine.NewTokenizer([]string{"<unk>", "<s>", "</s>", " a"}, []float32{0, 0, 0, 0}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, tok
}

// hostileMemory: work that cannot fit in memory is refused up front,
// with the numbers; work that fits runs, in memory sized by the work.
func hostileMemory(t *testing.T) {
	m, tok := deepModel(t)
	// A generation of a few tokens on the deep model needs a few
	// positions of cache, not the 68.7 GB its header allows.
	var steps int
	for _, err := range Generate(context.Background(), m, tok, "", Options{MaxNewTokens: 8}) {
		if err != nil {
			t.Fatalf("8 tokens on the deep model: %v", err)
		}
		steps++
	}
	if steps == 0 {
		t.Fatal("8 tokens on the deep model: no step")
	}
	for _, c := range []struct {
		name string
		run  func() error
		want []string
	}{
		{"Generate until the 2^20-token context is full", func() error {
			for _, err := range Generate(context.Background(), m, tok, "", Options{}) {
				return err
			}
			return nil
		}, []string{"KV cache for 1048576 positions", "68.7 GB", "but only", "ulimit -d"}},
		{"beam search 100 wide over a million tokens", func() error {
			_, err := beamSearch(fixedLM(0.5, 0.5), []int{0}, Options{MaxNewTokens: 1 << 20, Decoder: Beam{Width: 100}})
			return err
		}, []string{"beam search of width 100 over 1048575 tokens", "TB, but only"}},
		{"beam search 101 wide", func() error {
			_, err := beamSearch(fixedLM(0.5, 0.5), []int{0}, Options{MaxNewTokens: 4, Decoder: Beam{Width: 101}})
			return err
		}, []string{"Decoder.Width = 101: beam width must be between 1 and 100"}},
	} {
		limittest.NoPanic(t, c.name, func() {
			err := c.run()
			limittest.WantErr(t, c.name, err, c.want...)
			var me *engine.MemoryError
			if err != nil && !errors.As(err, &me) && !strings.Contains(c.name, "101 wide") {
				t.Errorf("%s: %v is not a *MemoryError", c.name, err)
			}
		})
	}
}

// hostileSettings: settings that would overflow float32 on ordinary
// logits, or mean nothing, are refused by Options.Validate with the
// setting, its value and the range.
func hostileSettings(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Temperature: 1e-38, TopK: 1}, "Temperature = 1e-38: must be 0 (greedy) or between 0.001 and 100"},
		{Options{Temperature: 1e39}, "Temperature = 1e+39: must be 0 (greedy) or between 0.001 and 100"},
		{Options{Temperature: math.Inf(1)}, "Temperature = +Inf"},
		{Options{Temperature: math.NaN()}, "Temperature = NaN"},
		{Options{Temperature: -1}, "Temperature = -1"},
		{Options{RepetitionPenalty: 1e-300}, "RepetitionPenalty = 1e-300: must be between 0.01 and 100"},
		{Options{RepetitionPenalty: 1e300}, "RepetitionPenalty = 1e+300"},
		{Options{RepetitionPenalty: -1}, "RepetitionPenalty = -1"},
		{Options{PresencePenalty: -1e39}, "PresencePenalty = -1e+39: must be between -100 and 100"},
		{Options{PresencePenalty: 1e39}, "PresencePenalty = 1e+39"},
		{Options{PresencePenalty: math.NaN()}, "PresencePenalty = NaN"},
		{Options{FrequencyPenalty: -1e39}, "FrequencyPenalty = -1e+39: must be between -100 and 100"},
		{Options{FrequencyPenalty: math.Inf(-1)}, "FrequencyPenalty = -Inf"},
		{Options{LogitBias: map[int]float32{1: 1e38}}, "LogitBias[1] = 1e+38: must be between -100 and 100, or -Inf (ban)"},
		{Options{LogitBias: map[int]float32{1: float32(math.Inf(1))}}, "LogitBias[1] = +Inf"},
		{Options{LogitBias: map[int]float32{1: float32(math.NaN())}}, "LogitBias[1] = NaN"},
		{Options{LogitBias: map[int]float32{7: 1}}, "LogitBias[7] = 1: token id 7 is outside the vocabulary (0..3)"},
		{Options{TopP: -0.1}, "TopP = -0.1"},
		{Options{TopP: 1.5}, "TopP = 1.5"},
		{Options{TopP: math.NaN()}, "TopP = NaN"},
		{Options{MinP: 2}, "MinP = 2"},
		{Options{TopK: -1}, "TopK = -1"},
		{Options{PenaltyWindow: -1}, "PenaltyWindow = -1"},
		{Options{NoRepeatNGram: -1}, "NoRepeatNGram = -1"},
		{Options{MaxNewTokens: -1}, "MaxNewTokens = -1"},
		{Options{TopLogProbs: -1}, "TopLogProbs = -1"},
		{Options{Stop: []string{"x", ""}}, `Stop[1] = "": an empty stop sequence`},
	} {
		limittest.NoPanic(t, fmt.Sprintf("%+v", c.o), func() {
			limittest.WantErr(t, fmt.Sprintf("Validate(%+v)", c.o), c.o.Validate(4), c.want)
			if _, err := c.o.NewSampler(4); err == nil && c.o.MaxNewTokens == 0 && c.o.TopLogProbs == 0 && c.o.Stop == nil {
				t.Errorf("NewSampler(%+v) accepted it", c.o)
			}
		})
	}
}

// hostileLogits: the sampler draws only from a real distribution. Bad
// logits, and settings that overflow on the logits at hand, give an error
// and NoToken — never the last id, or any id, by default.
func hostileLogits(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, c := range []struct {
		name    string
		o       Options
		logits  []float32
		history []int
		want    string
	}{
		{"nil logits", Options{Temperature: 1}, nil, nil, "no logits"},
		{"empty logits", Options{}, []float32{}, nil, "no logits"},
		{"a NaN logit", Options{Temperature: 1}, []float32{1, nan, 2}, nil, "token 1 the logit NaN"},
		{"a NaN logit, greedy", Options{}, []float32{nan, 1}, nil, "token 0 the logit NaN"},
		{"a +Inf logit", Options{Temperature: 1}, []float32{1, 2, inf}, nil, "token 2 the logit +Inf"},
		{"every logit -Inf", Options{Temperature: 1}, []float32{-inf, -inf}, nil, "every one of its 2 tokens the logit -Inf"},
		{"temperature 0.001 on logits near the float32 maximum", Options{Temperature: 0.001}, []float32{3e38, 1}, nil, "the temperature stage made token 0's logit +Inf: Temperature = 0.001 overflows float32"},
		{"repetition penalty 0.01 on a huge logit", Options{Temperature: 1, RepetitionPenalty: 0.01}, []float32{3e38, 1}, []int{0}, "the repetition penalty stage made token 0's logit +Inf"},
		{"a ban of a token outside the logits", Options{LogitBias: map[int]float32{5: -1}}, []float32{1, 2}, nil, "LogitBias[5] = -1: token id 5 is outside the vocabulary (0..1)"},
	} {
		limittest.NoPanic(t, c.name, func() {
			s := c.o.sampler() // unchecked, as a caller might set the fields
			id, err := s.Sample(c.logits, c.history...)
			limittest.WantErr(t, c.name, err, c.want)
			if id != NoToken {
				t.Errorf("%s: Sample returned id %d with its error; want NoToken", c.name, id)
			}
			id, stages, err := s.SampleTrace(c.logits, c.history)
			limittest.WantErr(t, c.name+" (SampleTrace)", err, c.want)
			if id != NoToken {
				t.Errorf("%s: SampleTrace returned id %d with its error", c.name, id)
			}
			for _, st := range stages {
				for _, p := range st.Probs {
					if math.IsNaN(p) {
						t.Errorf("%s: SampleTrace's stage %q holds NaN", c.name, st.Name)
						break
					}
				}
			}
		})
	}
	limittest.NoPanic(t, "nil *Sampler", func() {
		var s *Sampler
		_, err := s.Sample([]float32{1})
		limittest.WantErr(t, "nil *Sampler", err, "nil *Sampler")
	})
	limittest.NoPanic(t, "zero Sampler", func() {
		id, err := (&Sampler{}).Sample([]float32{0, 1})
		if err != nil || id != 1 {
			t.Errorf("the zero Sampler (greedy): %d, %v; want 1", id, err)
		}
	})
	limittest.NoPanic(t, "LogitBias of a sampler made without a vocabulary", func() {
		s, err := Options{Temperature: 1, LogitBias: map[int]float32{5: -1}}.NewSampler(0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Sample([]float32{0, 1})
		limittest.WantErr(t, "LogitBias[5] on two logits", err, "LogitBias[5] = -1: token id 5 is outside the vocabulary (0..1)")
	})
	// Decode and Argmax never hand out a token that does not exist.
	if got := Argmax([]float32{nan, nan}); got != NoToken {
		t.Errorf("Argmax of only NaN = %d, want NoToken", got)
	}
	if got := Argmax([]float32{nan, 1, 3, nan}); got != 2 {
		t.Errorf("Argmax([NaN 1 3 NaN]) = %d, want 2", got)
	}
	for _, err := range sampleLoop(fixedLM(0.5, 0.5), []int{0}, 3, func([]float32) int { return NoToken }, nil) {
		limittest.WantErr(t, "Decode with a pick that fails", err, "pick returned token id -1")
		break
	}
}

// hostileWeights: NaN and infinite weights are refused at load with the
// tensor and index; in a model built in Go they are caught by the logits
// they spoil, with the position.
func hostileWeights(t *testing.T) {
	for _, c := range []struct {
		name   string
		tensor func(w *engine.Weights) []float32
		value  float32
		want   string
	}{
		{"NaN in wq", func(w *engine.Weights) []float32 { return w.Wq }, float32(math.NaN()), "weight wq[5] is NaN"},
		{"+Inf in w2", func(w *engine.Weights) []float32 { return w.W2 }, float32(math.Inf(1)), "weight w2[5] is +Inf"},
		{"-Inf in the embedding", func(w *engine.Weights) []float32 { return w.TokenEmbedding }, float32(math.Inf(-1)), "weight token_embedding[5] is -Inf"},
		{"NaN in rms_final", func(w *engine.Weights) []float32 { return w.RMSFinal }, float32(math.NaN()), "weight rms_final[5] is NaN"},
	} {
		limittest.NoPanic(t, c.name, func() {
			tok := byteTokenizer()
			m := randomModel(engine.Config{Dim: 8, HiddenDim: 8, NLayers: 1, NHeads: 2, NKVHeads: 2, VocabSize: tok.VocabSize(), SeqLen: 16, SharedClassifier: true}, 5)
			c.tensor(m.Weights())[5] = c.value
			var last error
			for _, err := range Generate(context.Background(), m, tok, "x", Options{MaxNewTokens: 3}) {
				last = err
			}
			limittest.WantErr(t, "Generate with "+c.name, last, "logits after position", "are not numbers")
		})
	}
}

// hostileAPI: nil or mismatched arguments to the Go API give errors,
// not panics.
func hostileAPI(t *testing.T) {
	m, tok := chainModel(t, 32)
	// A model put together by hand whose first layer's wq has a row
	// too few.
	short := *m
	mats := *m.Matrices
	mats.Layers = slices.Clone(mats.Layers)
	c := m.Config
	wq, err := engine.NewMatrix(c.Dim-1, c.Dim, make([]float32, (c.Dim-1)*c.Dim))
	if err != nil {
		t.Fatal(err)
	}
	mats.Layers[0].Wq = wq
	short.Matrices = &mats
	ctx := context.Background()
	first := func(seq func(func(Step, error) bool)) (err error) {
		for _, e := range seq {
			return e
		}
		return nil
	}
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"Generate(nil context)", func() error { return first(Generate(nil, m, tok, "x", Options{})) }, "nil context"},
		{"Generate(nil model)", func() error { return first(Generate(ctx, nil, tok, "x", Options{})) }, "nil *Model"},
		{"Generate(nil tokenizer)", func() error { return first(Generate(ctx, m, nil, "x", Options{})) }, "nil *Tokenizer"},
		{"Generate(model without weights)", func() error {
			return first(Generate(ctx, &engine.Model{Config: m.Config, Name: "bare"}, tok, "x", Options{}))
		}, "model bare has no weights"},
		{"Generate(wq one row short)", func() error { return first(Generate(ctx, &short, tok, "x", Options{})) }, "matrix wq is"},
		{"Generate(Config{})", func() error { return first(Generate(ctx, &engine.Model{}, tok, "x", Options{})) }, "dim = 0 is out of range"},
		{"sampleLoop(nil LM)", func() error {
			for _, err := range sampleLoop(nil, []int{1}, 3, Argmax, nil) {
				return err
			}
			return nil
		}, "nil LM"},
		{"sampleLoop(ModelLM with a typed nil)", func() error {
			var lm *engine.ModelLM
			for _, err := range sampleLoop(lm, []int{1}, 3, Argmax, nil) {
				return err
			}
			return nil
		}, "ModelLM has no model"},
		{"beamSearch(nil LM)", func() error {
			_, err := beamSearch(nil, []int{1}, Options{MaxNewTokens: 2, Decoder: Beam{Width: 2}})
			return err
		}, "nil LM"},
		{"beamSearchContext(nil context)", func() error {
			_, err := beamSearchContext(nil, engine.NewModelLM(m, 2), []int{1}, Options{MaxNewTokens: 2, Decoder: Beam{Width: 2}})
			return err
		}, "nil context"},
		{"speculative(nil, nil)", func() error {
			_, err := speculative(nil, nil, []int{1}, Options{Decoder: Speculation{Gamma: 2}}, nil)
			return err
		}, "no language model (nil LM)"},
		{"speculative(draft without model)", func() error {
			_, err := speculative(engine.NewModelLM(m, 1), engine.NewModelLM(nil, 1), []int{1}, Options{Decoder: Speculation{Gamma: 2}}, nil)
			return err
		}, "draft model: ModelLM has no model"},
		{"Beam over an LM whose logits are NaN", func() error {
			_, err := beamSearch(&tableLM{vocab: 2, probs: func([]int) []float64 { return []float64{math.NaN(), 0.5} }}, []int{0}, Options{MaxNewTokens: 2, Decoder: Beam{Width: 2}})
			return err
		}, "row 0 of its logits gave token 0 the logit NaN"},
	} {
		limittest.NoPanic(t, c.name, func() { limittest.WantErr(t, c.name, c.run(), c.want) })
	}
}

// hostileCancelledPrefill: a long prompt's single batched pass stops at
// the first check after cancellation — between two layers — instead of
// running every layer first.
func hostileCancelledPrefill(t *testing.T) {
	c := engine.Config{Dim: 16, HiddenDim: 16, NLayers: 8, NHeads: 2, NKVHeads: 2, VocabSize: 8, SeqLen: 64, SharedClassifier: true}
	// Generate reports it as a finish reason, not an error.
	tok := byteTokenizer()
	c.VocabSize = tok.VocabSize()
	m := randomModel(c, 9)
	ctx := limittest.CountingContext(4)
	var steps []Step
	for st, err := range Generate(ctx, m, tok, strings.Repeat("x", 50), Options{MaxNewTokens: 5}) {
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, st)
	}
	if len(steps) != 1 || steps[0].Finish != FinishCancelled || steps[0].ID != NoToken {
		t.Errorf("Generate cancelled during prefill gave %+v; want one step, NoToken, finish %q", steps, FinishCancelled)
	}
}

// hostileTrace: when every token is banned, the trace shows the stage
// that banned them (all zeros) and the fallback the sampler then used —
// never NaN; and TopP with p = 1 keeps every token even when the float32
// running sum passes 1 early.
func hostileTrace(t *testing.T) {
	for _, o := range []Options{{NoRepeatNGram: 1}, {NoRepeatNGram: 1, Temperature: 1, Seed: 3}} {
		s, err := o.NewSampler(4)
		if err != nil {
			t.Fatal(err)
		}
		id, stages, err := s.SampleTrace([]float32{1, 3, 2, 0}, []int{0, 1, 2, 3})
		if err != nil || id < 0 || id > 3 {
			t.Fatalf("%+v: every token banned: %d, %v", o, id, err)
		}
		var names []string
		for _, st := range stages {
			names = append(names, st.Name)
			var sum float64
			for _, p := range st.Probs {
				if math.IsNaN(p) {
					t.Errorf("%+v: stage %q holds NaN", o, st.Name)
				}
				sum += p
			}
			want := 1.0
			if st.Name == "no-repeat n-gram" {
				want = 0
			}
			if math.Abs(sum-want) > 1e-9 {
				t.Errorf("%+v: stage %q sums to %v, want %v", o, st.Name, sum, want)
			}
		}
		if len(names) < 3 || names[1] != "no-repeat n-gram" || names[2] != "fallback" {
			t.Errorf("%+v: stages %v; want model, no-repeat n-gram, fallback, ...", o, names)
		}
	}
	probs := []float32{0.6, 0.40000004, 1e-7} // 0.6 + 0.40000004 rounds to 1.0000001 in float32
	if kept := nucleus(probs, 1, nil); len(kept) != 3 {
		t.Errorf("nucleus(%v, 1) kept %v; want all 3 tokens", probs, kept)
	}
	kept := slices.Clone(probs)
	if ApplyTopP(kept, 1); !slices.Equal(kept, probs) {
		t.Errorf("ApplyTopP(%v, 1) left %v; want every token kept", probs, kept)
	}
}

// hostileBeamCancel: beam search honours cancellation between the
// questions of one step, and returns the best found so far.
func hostileBeamCancel(t *testing.T) {
	ctx := limittest.CountingContext(4)
	res, err := beamSearchContext(ctx, fixedLM(0.4, 0.3, 0.2, 0.1), []int{0}, Options{MaxNewTokens: 10, Decoder: Beam{Width: 3}})
	if !errors.Is(err, context.Canceled) || res == nil || len(res.Best.Tokens) != 1 {
		t.Fatalf("cancelled within step 2: %v, %+v; want the best of step 1 and context.Canceled", err, res)
	}
}
