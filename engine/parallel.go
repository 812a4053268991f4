package engine

import (
	"sync"
	"sync/atomic"
	"time"
)

// A decode step hands work to the other cores some fifty times (every
// matrix-vector product, and the attention heads late in a sequence), and
// each piece takes only microseconds to tens of microseconds. Starting a
// goroutine for every piece, and waking a sleeping core for it, can cost
// as much as the piece itself. So the pieces go to a team of helper
// goroutines, one per extra core, started once, that keep watching for
// the next piece for a little while (spinWait) after each one before they
// go to sleep, while the caller watches for them to finish (joinWait)
// before it sleeps: within a pass a hand-off then costs about a
// microsecond.

// parallelFor splits the items 0..n-1 into one contiguous range per core
// and calls f(worker, start, end) for each range at the same time; worker
// numbers the ranges from 0, and range 0 runs on the calling goroutine.
// When worth is false, or there is a single core, it calls f(0, 0, n)
// directly. f must not call parallelFor itself.
func parallelFor(n int, worth bool, f func(worker, start, end int)) {
	workers := min(maxWorkers(), n)
	if !worth || workers < 2 {
		f(0, 0, n)
		return
	}
	per := (n + workers - 1) / workers
	t := theTeam(maxWorkers())
	if t == nil || !t.busy.TryLock() {
		// The team is busy with another caller's work (or was made for
		// another number of cores): plain goroutines do it.
		spawnFor(n, per, f)
		return
	}
	t.run(n, per, f)
	t.busy.Unlock()
}

// spawnFor is parallelFor with one new goroutine per range but the first.
func spawnFor(n, per int, f func(worker, start, end int)) {
	var wg sync.WaitGroup
	for wk, r0 := 1, per; r0 < n; wk, r0 = wk+1, r0+per {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(wk, r0, min(r0+per, n))
		}()
	}
	f(0, 0, min(per, n))
	wg.Wait()
}

// spinWait is how long a helper keeps watching for work after its last
// piece before it sleeps; joinWait is how long the caller watches for the
// helpers to finish before it sleeps.
//
// Spinning costs a core that other programs could use, and on a machine
// busier than its cores it also costs this program: a spinning thread uses
// up its share of the processor and is then made to wait, maybe in the
// middle of its next piece, while a sleeping one is run soon after it is
// woken. Short waits keep most of the gain of spinning there too.
const (
	spinWait = 30 * time.Microsecond
	joinWait = 3 * time.Microsecond
)

// team is the helper goroutines for one number of cores.
type team struct {
	size int        // cores: the caller plus size-1 helpers
	busy sync.Mutex // held by the caller whose work the team is doing

	seq     atomic.Uint64 // numbers the pieces of work, from 1
	pending atomic.Int64  // helpers not yet done with the current piece
	// The current piece: written before seq moves on, read after.
	f      func(worker, start, end int)
	n, per int

	waiting atomic.Bool   // the caller sleeps until done is sent
	done    chan struct{} // the last helper's wake-up call to the caller

	helpers []*helper
}

// helper is one helper goroutine's way to be woken from sleep.
type helper struct {
	sleeping atomic.Bool
	wake     chan struct{}
}

var (
	teamMu sync.Mutex
	teamP  atomic.Pointer[team]
)

// theTeam returns the team for size cores, starting it on first use, or
// nil when a team was already started for another number of cores (the
// process changed GOMAXPROCS since).
func theTeam(size int) *team {
	if t := teamP.Load(); t != nil {
		if t.size != size {
			return nil
		}
		return t
	}
	teamMu.Lock()
	defer teamMu.Unlock()
	if t := teamP.Load(); t != nil {
		return theTeam(size)
	}
	t := &team{size: size, done: make(chan struct{}, 1)}
	for i := 1; i < size; i++ {
		h := &helper{wake: make(chan struct{}, 1)}
		t.helpers = append(t.helpers, h)
		go t.loop(i, h)
	}
	teamP.Store(t)
	return t
}

// run does one piece: ranges of per items, range w on helper w (range 0 on
// the caller), and returns when all are done. Every helper takes part,
// with an empty range when there are fewer ranges than cores.
func (t *team) run(n, per int, f func(worker, start, end int)) {
	t.f, t.n, t.per = f, n, per
	t.pending.Store(int64(len(t.helpers)))
	t.seq.Add(1)
	for _, h := range t.helpers {
		if h.sleeping.CompareAndSwap(true, false) {
			h.wake <- struct{}{}
		}
	}
	f(0, 0, min(per, n))
	t.join()
	t.f = nil
}

// join returns when every helper is done with the current piece. They
// started with the caller and have as much to do, so they are usually done
// within microseconds: the caller watches for that for joinWait, then
// sleeps until the last one wakes it. On a machine busier than its cores,
// a helper may wait for a core, and the caller then gives up its own.
func (t *team) join() {
	start := time.Now()
	for spins := 0; t.pending.Load() != 0; spins++ {
		if spins&63 == 63 && time.Since(start) > joinWait {
			t.waiting.Store(true)
			if t.pending.Load() == 0 && t.waiting.CompareAndSwap(true, false) {
				return // the last helper finished just now
			}
			// Either some helper is still working, or the last one saw
			// the caller asleep and is sending.
			<-t.done
			return
		}
	}
}

// finished is a helper's report that it finished its range; the last to
// finish wakes the caller if it sleeps.
func (t *team) finished() {
	if t.pending.Add(-1) == 0 && t.waiting.CompareAndSwap(true, false) {
		t.done <- struct{}{}
	}
}

// loop is helper w's life: wait for a piece, do range w of it, report.
func (t *team) loop(w int, h *helper) {
	var last uint64 // the team's pieces start at 1, maybe before this runs
	for {
		last = t.await(h, last)
		if r0 := w * t.per; r0 < t.n {
			t.f(w, r0, min(r0+t.per, t.n))
		}
		t.finished()
	}
}

// await returns the number of the next piece after last, watching for it
// for spinWait and then sleeping until the caller wakes the helper.
func (t *team) await(h *helper, last uint64) uint64 {
	start := time.Now()
	for spins := 0; ; spins++ {
		if s := t.seq.Load(); s != last {
			return s
		}
		if spins&255 == 255 && time.Since(start) > spinWait {
			break
		}
	}
	h.sleeping.Store(true)
	if s := t.seq.Load(); s != last && h.sleeping.CompareAndSwap(true, false) {
		return s // work came just now, before the caller saw us asleep
	}
	// Either no work yet, or the caller saw us asleep and is sending.
	<-h.wake
	return t.seq.Load()
}
