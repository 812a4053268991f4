package engine

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// TestSameLogitsOnAnyNumberOfCores runs the same tokens through a decode
// loop and a prefill with one, two and three cores: the logits must be
// bit for bit the same, since every row of every product is summed by one
// goroutine in one order whatever the split. The shape is large enough
// for every product to be split, and its widths (258 and 86) are not
// multiples of 4, so blocks of rows end inside the pieces of a fused
// hand-off.
func TestSameLogitsOnAnyNumberOfCores(t *testing.T) {
	for _, c := range []Config{
		{Dim: 258, HiddenDim: 514, NLayers: 2, NHeads: 3, NKVHeads: 1, VocabSize: 300, SeqLen: 160},
		// Head sizes that are multiples of 4, and two key/value heads or
		// more: on several cores, q, k, v and attention are shared by
		// key/value head (byGroups), with and without grouped queries.
		{Dim: 256, HiddenDim: 512, NLayers: 2, NHeads: 8, NKVHeads: 2, VocabSize: 300, SeqLen: 160},
		{Dim: 256, HiddenDim: 512, NLayers: 2, NHeads: 4, NKVHeads: 4, VocabSize: 300, SeqLen: 160},
	} {
		sameLogitsOnAnyNumberOfCores(t, c)
	}
}

func sameLogitsOnAnyNumberOfCores(t *testing.T, c Config) {
	m := randomModel(c, 11)
	tokens := make([]int, 150)
	for i := range tokens {
		tokens[i] = (i*37 + 5) % c.VocabSize
	}
	run := func(procs int) (decode, prefill []float32) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		s := m.NewState()
		for pos, tok := range tokens {
			logits, err := s.Forward(tok, pos)
			if err != nil {
				t.Fatalf("%v, %d cores: Forward(%d, %d): %v", c, procs, tok, pos, err)
			}
			decode = append(decode, logits...)
		}
		p := m.NewState()
		logits, err := p.Prefill(tokens, 0)
		if err != nil {
			t.Fatalf("%v, %d cores: Prefill: %v", c, procs, err)
		}
		return decode, append([]float32(nil), logits...)
	}
	wantDecode, wantPrefill := run(1)
	for _, procs := range []int{2, 3} {
		gotDecode, gotPrefill := run(procs)
		for i := range wantDecode {
			if math.Float32bits(gotDecode[i]) != math.Float32bits(wantDecode[i]) {
				t.Fatalf("%v, Forward with %d cores: logit %d of position %d is %g; with one core %g", c, procs, i%c.VocabSize, i/c.VocabSize, gotDecode[i], wantDecode[i])
			}
		}
		for i := range wantPrefill {
			if math.Float32bits(gotPrefill[i]) != math.Float32bits(wantPrefill[i]) {
				t.Fatalf("%v, Prefill with %d cores: logit %d is %g; with one core %g", c, procs, i, gotPrefill[i], wantPrefill[i])
			}
		}
	}
}

// TestDecodeStepSharedAmongCoresAllocatesNothing: once its buffers are
// made, a decode step allocates nothing, also when its products and its
// attention heads are shared among cores (so a long generation gives the
// garbage collector nothing to do).
func TestDecodeStepSharedAmongCoresAllocatesNothing(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector allocates for itself")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	c := Config{Dim: 384, HiddenDim: 768, NLayers: 2, NHeads: 4, NKVHeads: 4, VocabSize: 300, SeqLen: 200}
	s := randomModel(c, 3).NewState()
	if err := s.Reserve(c.SeqLen); err != nil {
		t.Fatal(err)
	}
	// Late positions: (pos+1)·dim is past attentionThreshold, so the
	// heads are shared too.
	for pos := range 150 {
		if _, err := s.Forward(1+pos%7, pos); err != nil {
			t.Fatal(err)
		}
	}
	// testing.AllocsPerRun would run it on one core: count by hand. The
	// count is the whole program's, and on a busy machine the runtime may
	// allocate for itself now and then (a goroutine that sleeps on a
	// channel can need a new record of its wait), so a few tries are
	// allowed: an allocation in the step itself shows in every one.
	var counts []uint64
	for range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for pos := 150; pos < 170; pos++ {
			if _, err := s.Forward(5, pos); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		n := after.Mallocs - before.Mallocs
		if n == 0 {
			return
		}
		counts = append(counts, n)
	}
	t.Errorf("Forward at positions 150..169 on 2 cores, 5 times: %v allocations in 20 steps, want 0 at least once", counts)
}

// TestStatesShareAModel: sequences on one model, each its own State, run at
// once on several goroutines and give what they give alone (run with -race,
// this also checks that nothing a State makes for itself is kept in the
// shared Model).
func TestStatesShareAModel(t *testing.T) {
	m, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	prompts := []string{"func main() {", "// Package sort", "type T struct {", "for i := range"}
	alone := make([][]float32, len(prompts))
	run := func(i int) []float32 {
		ids, err := tok.Encode(prompts[i], true, false)
		if err != nil {
			t.Error(err)
			return nil
		}
		logits, err := m.NewState().Prefill(ids, 0)
		if err != nil {
			t.Error(err)
			return nil
		}
		return slices.Clone(logits)
	}
	// Together first, on a model no State has run yet.
	together := make([][]float32, len(prompts))
	var wg sync.WaitGroup
	for i := range prompts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			together[i] = run(i)
		}()
	}
	wg.Wait()
	for i := range prompts {
		alone[i] = run(i)
	}
	for i := range prompts {
		if !slices.Equal(alone[i], together[i]) {
			t.Errorf("%q: logits differ when other sequences run at once", prompts[i])
		}
	}
}
