package experiment

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
)

func TestMillisecondsAndBestTime(t *testing.T) {
	if got := Milliseconds(1500 * time.Microsecond); got != 1.5 {
		t.Errorf("Milliseconds(1.5ms) = %v", got)
	}
	calls := 0
	if d := BestTime(4, func() { calls++ }); calls != 4 || d < 0 {
		t.Errorf("BestTime(4, f) called f %d times and returned %v", calls, d)
	}
	calls = 0
	BestTime(0, func() { calls++ })
	if calls != 1 {
		t.Errorf("BestTime(0, f) called f %d times, want once", calls)
	}
}

func TestSmallHelpers(t *testing.T) {
	if got := Cumulative([]float64{1, 2, 3.5}); !slices.Equal(got, []float64{1, 3, 6.5}) {
		t.Errorf("Cumulative = %v", got)
	}
	if got := Positions(10, 4); !slices.Equal(got, []int{0, 4, 8, 10}) {
		t.Errorf("Positions(10, 4) = %v", got)
	}
	if got := Positions(8, 4); !slices.Equal(got, []int{0, 4, 8}) {
		t.Errorf("Positions(8, 4) = %v", got)
	}
	if got := RepeatTo([]int{7, 8, 9}, 7); !slices.Equal(got, []int{7, 8, 9, 7, 8, 9, 7}) {
		t.Errorf("RepeatTo = %v", got)
	}
	if got := LargestDifference([]float32{1, 2, 3}, []float32{1, 2.5, 2}); got != 1 {
		t.Errorf("LargestDifference = %v, want 1", got)
	}
}

// tiny is a shape small enough to count its FLOPs by hand.
var tiny = engine.Config{Dim: 4, HiddenDim: 8, NLayers: 1, NHeads: 2, NKVHeads: 1, VocabSize: 10, SeqLen: 16}

func TestDecodeStepFLOPs(t *testing.T) {
	// Norms 3·4·4 = 48; attention: projections 32+16+16+32 = 96, scores and
	// sums 1 position × 2 heads × (4·2+5) = 26, rotary 6·(4+2)/2 = 18;
	// MLP 3·2·8·4 + 6·8 = 240; vocabulary 2·10·4 = 80.
	if got := DecodeStepFLOPs(tiny, 0); got != 48+96+26+18+240+80 {
		t.Errorf("DecodeStepFLOPs(tiny, 0) = %d, want 508", got)
	}
	// Nine more visible positions: 9 × 26 more.
	if got := DecodeStepFLOPs(tiny, 9); got != 508+9*26 {
		t.Errorf("DecodeStepFLOPs(tiny, 9) = %d, want 742", got)
	}
	if got := CacheAttentionFLOPs(tiny, 9); got != 10*26 {
		t.Errorf("CacheAttentionFLOPs(tiny, 9) = %d, want 260", got)
	}
	// The growth of a step is the growth of its attention over the cache,
	// on a real shape too.
	c := engine.Config{Dim: 4096, HiddenDim: 14336, NLayers: 32, NHeads: 32, NKVHeads: 8, VocabSize: 128256, SeqLen: 8192}
	if a, b := DecodeStepFLOPs(c, 5000)-DecodeStepFLOPs(c, 0), CacheAttentionFLOPs(c, 5000)-CacheAttentionFLOPs(c, 0); a != b {
		t.Errorf("a step grows by %d FLOPs from position 0 to 5000, the attention over the cache by %d", a, b)
	}
}

func TestTimedSteps(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := tok.Encode("func", true, false)
	lm := engine.NewNoCacheLM(m)
	got, ms := TimedSteps(lm, ids, 5)
	var want []int
	for step, err := range decoding.Decode(context.Background(), engine.NewModelLM(m, 1), ids, decoding.Options{MaxNewTokens: 5}) {
		id := step.ID
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
	}
	if !slices.Equal(got, want) || len(ms) != 5 {
		t.Errorf("TimedSteps gave %v and %d times; greedy is %v", got, len(ms), want)
	}
	// Without a cache step i runs len(ids)+i positions.
	n := int64(len(ids))
	if lm.Passes != 5 || lm.Positions != 5*n+10 {
		t.Errorf("%d passes over %d positions; want 5 over %d", lm.Passes, lm.Positions, 5*n+10)
	}
}

func TestStepTimes(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := tok.Encode("func (b *Buffer) Len() int {", true, false)
	tokens := RepeatTo(ids, 40)
	positions := Positions(39, 13)
	for name, f := range map[string]func(*engine.Model, []int, []int, int) ([]float64, error){
		"cached": CachedStepTimes, "uncached": UncachedStepTimes,
	} {
		ms, err := f(m, tokens, positions, 2)
		if err != nil || len(ms) != len(positions) {
			t.Fatalf("%s: %d times, error %v; want %d", name, len(ms), err, len(positions))
		}
		for _, v := range ms {
			if !(v > 0) {
				t.Errorf("%s: a step took %v ms", name, v)
			}
		}
		if _, err := f(m, tokens[:30], positions, 1); err == nil {
			t.Errorf("%s: position 39 with 30 tokens: want an error", name)
		}
	}
	// A position past the model's context is refused; past it with a
	// longer context, it runs.
	long := WithContext(m, 600)
	if _, err := CachedStepTimes(m, RepeatTo(ids, 600), []int{599}, 1); err == nil {
		t.Error("position 599 of a 512-token model: want an error")
	}
	if _, err := CachedStepTimes(long, RepeatTo(ids, 600), []int{599}, 1); err != nil {
		t.Errorf("position 599 with a 600-token context: %v", err)
	}
	if m.Config.SeqLen == long.Config.SeqLen || &m.Weights().Wq[0] != &long.Weights().Wq[0] {
		t.Error("WithContext should change the copy's context and share the weights")
	}
}

func TestDecodeEach(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := tok.Encode("func (b *Buffer) Len() int {", true, false)
	a, b := m.NewState(), m.NewState()
	if err := DecodeEach(a, ids); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Prefill(ids, 0); err != nil {
		t.Fatal(err)
	}
	last := len(ids) - 1
	if d := LargestDifference(a.Cache.Key(1, last), b.Cache.Key(1, last)); d > 1e-4 {
		t.Errorf("decoding one at a time and prefilling differ by %v in a key", d)
	}
}

func TestCachedStepTimesFillsTheCache(t *testing.T) {
	// Past FillPrefix the cache is filled with copies: a step at the last
	// position of a stretched context runs.
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := tok.Encode("func (b *Buffer) Len() int {", true, false)
	long := WithContext(m, FillPrefix+100)
	ms, err := CachedStepTimes(long, RepeatTo(ids, FillPrefix+100), []int{0, FillPrefix + 99}, 1)
	if err != nil || len(ms) != 2 {
		t.Fatalf("%v, %v", ms, err)
	}
}
