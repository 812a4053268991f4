package engine

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// runPrompt runs tokens into kv from position from, in pieces of at most
// chunk rows (one pass each), and then each of next as a decoding row,
// returning the logits after the prompt and after every next token.
func runPrompt(t *testing.T, m *Model, kv Cache, tokens []int, from, chunk int, next []int) [][]float32 {
	t.Helper()
	pass := m.NewPass()
	var out [][]float32
	for lo := from; lo < len(tokens); lo += chunk {
		hi := min(lo+chunk, len(tokens))
		var batch []Row
		for i := lo; i < hi; i++ {
			batch = append(batch, Row{Token: tokens[i], Pos: i, Cache: kv, Logits: i == len(tokens)-1})
		}
		logits, err := pass.Forward(context.Background(), batch)
		if err != nil {
			t.Fatalf("prompt rows %d..%d: %v", lo, hi-1, err)
		}
		if hi == len(tokens) {
			out = append(out, slices.Clone(logits[0]))
		}
	}
	for i, id := range next {
		logits, err := pass.Forward(context.Background(), []Row{{Token: id, Pos: len(tokens) + i, Cache: kv, Logits: true}})
		if err != nil {
			t.Fatalf("decoding row %d: %v", i, err)
		}
		out = append(out, slices.Clone(logits[0]))
	}
	return out
}

func ids(n, seed, vocab int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = (seed*7 + 31*i + 3) % vocab
	}
	return p
}

func sameRows(t *testing.T, what string, got, want [][]float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows of logits, want %d", what, len(got), len(want))
	}
	for i := range want {
		if diff, _ := largestDiff(got[i], want[i]); diff != 0 {
			t.Fatalf("%s: row %d differs by %g from a cache in one piece; want the same bits", what, i, diff)
		}
	}
}

// TestPagedIsOnePiece: a sequence whose keys and values are in blocks of
// a pool gets the same logits, bit for bit, as in a cache in one piece,
// whatever the block size, for a prompt attended by tiles (SmolLM2, 100
// rows) and for decoding rows.
func TestPagedIsOnePiece(t *testing.T) {
	for name, m := range passModels(t) {
		t.Run(name, func(t *testing.T) {
			prompt := ids(100, 1, min(m.Config.VocabSize, 259))
			next := ids(5, 2, min(m.Config.VocabSize, 259))
			kv, err := m.NewCache()
			if err != nil {
				t.Fatal(err)
			}
			want := runPrompt(t, m, kv, prompt, 0, 512, next)
			for _, size := range []int{1, 5, 16, 64} {
				pool, err := m.NewBlockPool(size, 1<<30)
				if err != nil {
					t.Fatal(err)
				}
				pc := pool.NewCache()
				got := runPrompt(t, m, pc, prompt, 0, 512, next)
				sameRows(t, "blocks of "+itoa(size), got, want)
				if pc.Len() != 105 || pc.Blocks() != pool.BlocksFor(105) {
					t.Errorf("blocks of %d: Len %d with %d blocks; want 105 positions in %d", size, pc.Len(), pc.Blocks(), pool.BlocksFor(105))
				}
				pc.Release()
				if s := pool.Stats(); s.Held != 0 {
					t.Errorf("blocks of %d: %d blocks held after Release", size, s.Held)
				}
			}
		})
	}
}

func itoa(n int) string { return string(rune('0'+n/10%10)) + string(rune('0'+n%10)) }

// TestPrefixCache: a second sequence starting with the same tokens takes
// their blocks from the prefix cache, computes only the rest, and gets
// the logits it gets alone, bit for bit; the first sequence is unchanged
// by the second writing after the shared blocks.
func TestPrefixCache(t *testing.T) {
	for name, m := range passModels(t) {
		t.Run(name, func(t *testing.T) {
			vocab := min(m.Config.VocabSize, 259)
			system := ids(130, 3, vocab)
			a := append(slices.Clone(system), ids(20, 4, vocab)...)
			b := append(slices.Clone(system), ids(90, 5, vocab)...)
			next := ids(4, 6, vocab)
			pool, err := m.NewBlockPool(16, 1<<30)
			if err != nil {
				t.Fatal(err)
			}
			// Alone, each in a fresh pool.
			fresh := func(p []int) [][]float32 {
				pl, _ := m.NewBlockPool(16, 1<<30)
				return runPrompt(t, m, pl.NewCache(), p, 0, 512, next)
			}
			wantB := fresh(b)

			first := pool.NewCache()
			runPrompt(t, m, first, a, 0, 512, nil)
			second := pool.NewCache()
			tiled := make([]bool, len(b))
			for i := range tiled {
				tiled[i] = m.TiledRun(len(b))
			}
			n := second.Cached(b, tiled, len(b)-1)
			if n != 128 {
				t.Fatalf("Cached = %d positions of the %d-token prompt sharing %d tokens; want 128 (8 blocks of 16)", n, len(b), len(system))
			}
			if got := second.Reuse(b, tiled, len(b)-1); got != n || second.Len() != n {
				t.Fatalf("Reuse = %d, Len %d; want %d", got, second.Len(), n)
			}
			s := pool.Stats()
			if s.Hits != 1 || s.Reused != 128 {
				t.Errorf("stats after a hit: %+v", s)
			}
			// The rest of the prompt, 92 rows, is attended as it is
			// alone (by tiles, in SmolLM2's arithmetic).
			got := runPrompt(t, m, second, b, n, 512, next[:3])
			sameRows(t, "after a cached prefix", got, wantB[:4])
			// The first sequence is cut back into a shared block and
			// writes there: the block is copied, and the second's
			// next token is still its own.
			before := pool.Stats().Copied
			runPrompt(t, m, first, a[:101], 100, 512, nil)
			if pool.Stats().Copied == before {
				t.Errorf("writing into a shared block copied none")
			}
			again := runPrompt(t, m, second, append(slices.Clone(b), next[:3]...), len(b)+3, 512, next[3:])
			sameRows(t, "the second after the first rewrote a shared block", again, wantB[4:])
		})
	}
}

// TestPoolFull: a pass that needs more blocks than the pool has left
// fails with ErrPoolFull, keeps no block it took for it, and leaves the
// caches as they were; released blocks serve the next sequence, and
// cached blocks nobody holds give their memory to it.
func TestPoolFull(t *testing.T) {
	m := passModels(t)["course"]
	bytes := func(blocks int) int64 {
		p, _ := m.NewBlockPool(8, 1<<30)
		return int64(blocks) * p.BlockBytes()
	}
	pool, err := m.NewBlockPool(8, bytes(4))
	if err != nil {
		t.Fatal(err)
	}
	a, b := pool.NewCache(), pool.NewCache()
	runPrompt(t, m, a, ids(20, 1, 259), 0, 512, nil) // 3 blocks
	avail := pool.Available()
	// b's first block, and a's fourth and fifth: one too many.
	batch := []Row{{Token: 1, Pos: 0, Cache: b}, {Token: 2, Pos: 1, Cache: b}}
	for pos := 20; pos < 33; pos++ {
		batch = append(batch, Row{Token: pos, Pos: pos, Cache: a})
	}
	_, err = m.NewPass().Forward(context.Background(), batch)
	if !errors.Is(err, ErrPoolFull) {
		t.Fatalf("growing past the budget: %v; want ErrPoolFull", err)
	}
	if pool.Available() != avail || a.Len() != 20 || b.Len() != 0 {
		t.Errorf("after a full pool: %d blocks available (want %d), Len %d and %d (want 20 and 0)", pool.Available(), avail, a.Len(), b.Len())
	}
	a.Release()
	if got := pool.Available(); got != 4 {
		t.Errorf("after Release: %d blocks available, want 4", got)
	}
	// Two of a's blocks were full: they wait in the prefix cache, and
	// give way to b's.
	runPrompt(t, m, b, ids(32, 2, 259), 0, 512, nil)
	if s := pool.Stats(); s.Evicted == 0 || s.Held != 4 {
		t.Errorf("a sequence of 4 blocks after one released: %+v", s)
	}
	if _, err := m.NewBlockPool(8, 10); err == nil {
		t.Error("a budget of 10 bytes was accepted")
	}
	if _, err := m.NewBlockPool(65, 1<<30); err == nil {
		t.Error("a block of 65 positions was accepted")
	}
}
