package engine

import (
	"fmt"
	"runtime"
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
