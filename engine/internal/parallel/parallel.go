// Package parallel shares work among the cores Go may use. The engine's
// decode step, its prefill, the trainer and the course's evaluations all
// go through For, so that one team of helper goroutines serves them all.
//
// For is the one entry point: it cuts n items into ranges and hands them
// to the cores, and Workers says how many cores there are.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// A decode step hands work to the other cores a few dozen times (four or
// five times a layer, and once for the vocabulary projection), and each
// piece is short. Starting a goroutine for every piece, and waking a
// sleeping core for it, can cost as much as the piece itself. So the
// pieces go to a team of helper goroutines, one per extra core, started
// once, that keep watching for the next piece for a little while
// (spinWait) after each one before they go to sleep: within a pass a
// hand-off then costs far less than a piece.
//
// A piece is cut into chunks, and the caller and the helpers take the
// next chunk left until none is: a helper that the operating system runs
// late (the machine has other work) takes fewer, or none, and the caller
// never waits for a helper that has not started, so a second core never
// makes a pass much slower than one core would be. The chunks shrink as
// the piece goes (see cut), so that the cores finish close together.
//
// Taking a chunk costs a few atomic operations on memory the cores share,
// which for a decode step's short pieces adds up: a piece of items that
// all cost the same, such as a product's rows, is better cut into a few
// equal chunks (ForEqual), and one of items whose cost varies, such as
// whole generations, into shrinking ones (For).

// For calls f(worker, start, end) for ranges start..end-1 that cover the
// items 0..n-1 exactly once, on all the cores at the same time, and
// returns when every range is done. Each goroutine taking part has its own
// worker number, below Workers(), and may get several ranges, one after
// the other, so f can keep per-worker scratch indexed by it. When worth is
// false, or there is a single core or item, it calls f(0, 0, n) directly.
//
// f may call For itself (the team is then busy, and the inner call runs
// on goroutines of its own), but its worker numbers are the inner call's:
// scratch indexed by the outer worker number must not be shared with it.
func For(n int, worth bool, f func(worker, start, end int)) {
	forChunks(n, worth, 1, f)
}

// ForEqual is For for items that each cost about the same, such as the
// rows of a matrix product: it cuts the items into perCore equal chunks a
// core, not shrinking ones, so a short piece costs fewer hand-offs. A core
// that the operating system runs late still leaves its chunks to the
// others.
func ForEqual(n int, worth bool, f func(worker, start, end int)) {
	chunks := perCore * Workers()
	forChunks(n, worth, (n+chunks-1)/chunks, f)
}

// perCore is how many chunks a core gets in ForEqual: more than one, so
// that a core that starts late takes less.
const perCore = 2

// forChunks is For with chunks of at least least items (see cut).
func forChunks(n int, worth bool, least int, f func(worker, start, end int)) {
	workers := min(Workers(), n)
	if !worth || workers < 2 {
		f(0, 0, n)
		return
	}
	t := theTeam(Workers())
	if t == nil || !t.busy.TryLock() {
		// The team is busy with another caller's work (or was made for
		// another number of cores): plain goroutines do it.
		spawnFor(n, (n+workers-1)/workers, f)
		return
	}
	t.run(n, least, f)
	t.busy.Unlock()
}

// cut appends to bounds the ends of the chunks that n items are cut into
// for cores cores, after a first 0: chunk i is items bounds[i] to
// bounds[i+1]-1. Each chunk is the items still left divided by
// shrink·cores, and at least least items, and one (or n/countMask items,
// as there can be no more chunks than that), so the first chunks are
// long and the last ones short. A core that takes the last long chunk
// then finishes it while the others share the short ones, and no core
// waits for long at the end of a piece, as one can when all the chunks
// are the same size and some items take longer. ForEqual's least is as
// long as the first chunk, so its chunks are equal but a shorter last.
func cut(bounds []int, n, cores, least int) []int {
	least = max(least, (n+countMask-1)/countMask, 1)
	bounds = append(bounds[:0], 0)
	for done := 0; done < n; {
		done = min(done+max((n-done)/(shrink*cores), least), n)
		bounds = append(bounds, done)
	}
	return bounds
}

// shrink sets how fast the chunks shrink (see cut).
const shrink = 2

// Workers is the number of cores Go may use (GOMAXPROCS): For's worker
// numbers are below it.
func Workers() int { return runtime.GOMAXPROCS(0) }

// spawnFor is For with one new goroutine per range of per items
// but the first.
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
//
// The caller's wait is longer: it comes to join with nothing left to take,
// so it waits for at most one chunk per helper, which is short even in
// the vocabulary projection, and a caller that sleeps there pays for
// being woken (dearer still on a virtual machine) in every one of a
// step's few dozen pieces. A wait much shorter than a chunk throws away
// much of what the second core gains.
const (
	spinWait = 30 * time.Microsecond
	joinWait = 300 * time.Microsecond
)

// team is the helper goroutines for one number of cores.
type team struct {
	size int        // cores: the caller plus size-1 helpers
	busy sync.Mutex // held by the caller whose work the team is doing

	// work is the current piece's number (16 bits), its number of chunks
	// (16 bits) and the next chunk to take (32 bits): taking a chunk is
	// one atomic addition, whose result says which piece the chunk
	// belongs to and whether there was one left.
	work atomic.Uint64
	// The current piece, written before work changes to its number. A
	// goroutine that took a chunk may read them: they stay until its
	// chunk is done (remaining is then above 0).
	f            func(worker, start, end int)
	bounds       []int        // the chunks' ends (see cut)
	remaining    atomic.Int64 // items not yet done
	waiting      atomic.Bool  // the caller sleeps until done is sent
	done         chan struct{}
	helpers      []*helper
	pieceNumbers uint64
}

// helper is one helper goroutine's way to be woken from sleep.
type helper struct {
	sleeping atomic.Bool
	wake     chan struct{}
}

// Fields of team.work.
const (
	pieceShift  = 48
	chunksShift = 32
	chunkMask   = 1<<32 - 1
	countMask   = 1<<16 - 1
)

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

// run does one piece of n items, in chunks of at least least items, with
// the helpers and returns when every chunk is done.
func (t *team) run(n, least int, f func(worker, start, end int)) {
	t.f, t.bounds = f, cut(t.bounds, n, t.size, least)
	chunks := len(t.bounds) - 1
	t.remaining.Store(int64(n))
	t.pieceNumbers = (t.pieceNumbers + 1) & countMask
	t.work.Store(t.pieceNumbers<<pieceShift | uint64(chunks)<<chunksShift)
	for _, h := range t.helpers {
		if h.sleeping.CompareAndSwap(true, false) {
			h.wake <- struct{}{}
		}
	}
	t.take(0)
	t.join()
	t.f = nil
}

// take does chunks of the current piece as worker w until none is left,
// and returns the number of the piece they belonged to.
func (t *team) take(w int) uint64 {
	for {
		v := t.work.Add(1) - 1
		if v&chunkMask >= v>>chunksShift&countMask {
			return v >> pieceShift
		}
		r0, r1 := t.bounds[v&chunkMask], t.bounds[v&chunkMask+1]
		t.f(w, r0, r1)
		if t.remaining.Add(int64(r0-r1)) == 0 && t.waiting.CompareAndSwap(true, false) {
			t.done <- struct{}{} // the caller sleeps in join: wake it
		}
	}
}

// join returns when every chunk of the current piece is done. The caller
// comes here when none is left to take, so at most one chunk per helper is
// still being worked on: it watches for that for joinWait, then sleeps
// until the helper that finishes the last one wakes it.
func (t *team) join() {
	start := time.Now()
	for spins := 0; t.remaining.Load() != 0; spins++ {
		if spins&63 == 63 && time.Since(start) > joinWait {
			t.waiting.Store(true)
			if t.remaining.Load() == 0 && t.waiting.CompareAndSwap(true, false) {
				return // the last chunk was finished just now
			}
			// Either a chunk is still being worked on, or the helper that
			// finished the last one saw the caller asleep and is sending.
			<-t.done
			return
		}
	}
}

// loop is helper w's life: wait for a piece, take its chunks while there
// are some left.
func (t *team) loop(w int, h *helper) {
	var last uint64 // the team's pieces start at 1, maybe before this runs
	for {
		t.await(h, last)
		last = t.take(w)
	}
}

// await returns when the current piece is not piece last, watching for one
// for spinWait and then sleeping until the caller wakes the helper.
func (t *team) await(h *helper, last uint64) {
	start := time.Now()
	for spins := 0; ; spins++ {
		if t.work.Load()>>pieceShift != last {
			return
		}
		if spins&255 == 255 && time.Since(start) > spinWait {
			break
		}
	}
	h.sleeping.Store(true)
	if t.work.Load()>>pieceShift != last && h.sleeping.CompareAndSwap(true, false) {
		return // work came just now, before the caller saw us asleep
	}
	// Either no work yet, or the caller saw us asleep and is sending.
	<-h.wake
}
