package parallel

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestForCoversEveryItemOnce runs For many times, from
// several goroutines at once (so the team is sometimes busy and plain
// goroutines take over), with item counts below, at and above the number
// of cores, and after the helpers have fallen asleep: every item must be
// handled exactly once, and no worker number be used by two ranges at
// the same time.
func TestForCoversEveryItemOnce(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	check := func(n int) error {
		seen := make([]int32, n)
		var mu sync.Mutex
		var err error
		busy := make([]bool, Workers())
		For(n, true, func(worker, start, end int) {
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
// chunks than a piece can number. With ForEqual's least, every chunk but
// a shorter last is as long as the first, perCore of them a core.
func TestCut(t *testing.T) {
	var bounds []int
	for _, tc := range []struct{ n, cores int }{
		{1, 2}, {2, 2}, {3, 2}, {6, 2}, {50, 2}, {72, 2}, {192, 2}, {8000, 2}, {8000, 3},
		{100, 64}, {1 << 20, 2}, {1 << 24, 100000}, {countMask + 1, 1 << 20},
	} {
		for _, equal := range []bool{false, true} {
			least := 1
			if equal {
				least = (tc.n + perCore*tc.cores - 1) / (perCore * tc.cores)
			}
			bounds = cut(bounds, tc.n, tc.cores, least)
			chunks := len(bounds) - 1
			call := fmt.Sprintf("cut(%d items, %d cores, least %d)", tc.n, tc.cores, least)
			if bounds[0] != 0 || bounds[chunks] != tc.n || chunks > countMask {
				t.Fatalf("%s = %d chunks from %d to %d; want at most %d chunks from 0 to %d",
					call, chunks, bounds[0], bounds[chunks], countMask, tc.n)
			}
			if first, want := bounds[1], max(tc.n/(shrink*tc.cores), least, (tc.n+countMask-1)/countMask); first != min(want, tc.n) {
				t.Errorf("%s: first chunk %d items, want %d", call, first, min(want, tc.n))
			}
			for i := 1; i <= chunks; i++ {
				size := bounds[i] - bounds[i-1]
				if size < 1 {
					t.Fatalf("%s: chunk %d is %d items", call, i-1, size)
				}
				if i > 1 && i < chunks && size > bounds[i-1]-bounds[i-2] {
					t.Fatalf("%s: chunk %d is %d items, after one of %d", call, i-1, size, bounds[i-1]-bounds[i-2])
				}
				if equal && i < chunks && size != bounds[1] {
					t.Fatalf("%s: chunk %d is %d items, the first %d: want them equal but the last", call, i-1, size, bounds[1])
				}
			}
			if equal && chunks > perCore*tc.cores {
				t.Errorf("%s: %d chunks, want at most %d", call, chunks, perCore*tc.cores)
			}
		}
	}
}

// TestNestedFor: f calling For itself (an evaluation shared among the
// cores whose every problem runs a model that shares its products) must
// neither deadlock nor lose or repeat an item, outer or inner.
func TestNestedFor(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	const outer, inner = 37, 101
	var seen [outer][inner]int32
	var mu sync.Mutex
	For(outer, true, func(_, start, end int) {
		for i := start; i < end; i++ {
			For(inner, true, func(_, s, e int) {
				mu.Lock()
				defer mu.Unlock()
				for j := s; j < e; j++ {
					seen[i][j]++
				}
			})
		}
	})
	for i := range seen {
		for j, c := range seen[i] {
			if c != 1 {
				t.Fatalf("outer item %d, inner item %d handled %d times, want once", i, j, c)
			}
		}
	}
}
