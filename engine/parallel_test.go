package engine

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestParallelForCoversEveryItemOnce runs parallelFor many times, from
// several goroutines at once (so the team is sometimes busy and plain
// goroutines take over), with item counts below, at and above the number
// of cores, and after the helpers have fallen asleep: every item must be
// handled exactly once, and no worker number be used by two ranges at
// the same time.
func TestParallelForCoversEveryItemOnce(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	check := func(n int) error {
		seen := make([]int32, n)
		var mu sync.Mutex
		var err error
		busy := make([]bool, maxWorkers())
		parallelFor(n, true, func(worker, start, end int) {
			mu.Lock()
			if worker < 0 || worker >= len(busy) || busy[worker] || start < 0 || end > n || start >= end {
				err = fmt.Errorf("n=%d: worker %d (of %d) got items %d..%d, or is busy with others", n, worker, len(busy), start, end)
				mu.Unlock()
				return
			}
			busy[worker] = true
			mu.Unlock()
			for i := start; i < end; i++ {
				seen[i]++
			}
			mu.Lock()
			busy[worker] = false
			mu.Unlock()
		})
		for i, c := range seen {
			if c != 1 && err == nil {
				err = fmt.Errorf("n=%d: item %d handled %d times", n, i, c)
			}
		}
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rep := range 300 {
				if err := check(1 + (rep*7+g)%70); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	time.Sleep(3 * spinWait) // the helpers go to sleep: waking them must work
	for _, n := range []int{1, 2, 3, 1000} {
		if err := check(n); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * spinWait)
	}
}

// TestCut checks the chunks a piece is cut into: they cover the items in
// order, each at least one item, never longer than the one before but the
// last, the first a share of the items by shrink·cores, and never more
// chunks than a piece can number.
func TestCut(t *testing.T) {
	var bounds []int
	for _, tc := range []struct{ n, cores int }{
		{1, 2}, {2, 2}, {3, 2}, {6, 2}, {72, 2}, {192, 2}, {8000, 2}, {8000, 3},
		{100, 64}, {1 << 20, 2}, {1 << 24, 100000}, {countMask + 1, 1 << 20},
	} {
		bounds = cut(bounds, tc.n, tc.cores)
		chunks := len(bounds) - 1
		if bounds[0] != 0 || bounds[chunks] != tc.n || chunks > countMask {
			t.Fatalf("cut(%d items, %d cores) = %d chunks from %d to %d; want at most %d chunks from 0 to %d",
				tc.n, tc.cores, chunks, bounds[0], bounds[chunks], countMask, tc.n)
		}
		if first, want := bounds[1], max(tc.n/(shrink*tc.cores), 1, (tc.n+countMask-1)/countMask); first != min(want, tc.n) {
			t.Errorf("cut(%d items, %d cores): first chunk %d items, want %d", tc.n, tc.cores, first, min(want, tc.n))
		}
		for i := 1; i <= chunks; i++ {
			size := bounds[i] - bounds[i-1]
			if size < 1 {
				t.Fatalf("cut(%d items, %d cores): chunk %d is %d items", tc.n, tc.cores, i-1, size)
			}
			if i > 1 && i < chunks && size > bounds[i-1]-bounds[i-2] {
				t.Fatalf("cut(%d items, %d cores): chunk %d is %d items, after one of %d", tc.n, tc.cores, i-1, size, bounds[i-1]-bounds[i-2])
			}
		}
	}
}

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
	m, tok, err := Default()
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
