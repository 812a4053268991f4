package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestTask1_NewBlocks: pieces that fit in the room a sequence's last block
// has left, pieces that need one block more or several, a new prompt's
// first token, and a sequence that holds more blocks than its positions
// need.
//
//grade:task 1 points 1
func TestTask1_NewBlocks(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 4)
	defer fails.Close()
	for _, c := range []struct {
		cached, blocks, tokens, blockSize int
		want                              int
		why                               string
	}{
		{6, 2, 2, 4, 0, "8 positions fit in the 2 blocks it holds"},
		{6, 2, 3, 4, 1, "9 positions need a third block"},
		{0, 0, 1, 4, 1, "a new prompt's first token takes a block"},
		{0, 0, 9, 4, 3, "9 positions in blocks of 4: 3 blocks"},
		{8, 2, 1, 4, 1, "its 2 blocks are full: the decoding step takes a new one"},
		{7, 2, 1, 4, 0, "the decoding step fills its second block"},
		{16, 4, 16, 4, 4, "16 more positions: 4 more blocks"},
		{5, 5, 3, 1, 3, "blocks of 1 position: a block a token"},
		{0, 0, 16, 16, 1, "16 positions fill one block of 16"},
		{0, 0, 17, 16, 2, "17 positions spill into a second block"},
		{30, 2, 3, 16, 1, "33 positions in blocks of 16: 3 blocks, it holds 2"},
		{3, 3, 1, 4, 0, "it holds more blocks than 4 positions need: none more, never fewer than 0"},
	} {
		r := Request{Seq: 1, Cached: c.cached, Blocks: c.blocks}
		b := Budget{BlockSize: c.blockSize}
		if got := NewBlocks(r, c.tokens, b); got != c.want {
			fails.Errorf("NewBlocks(Cached %d, Blocks %d; tokens %d; BlockSize %d) = %d; want %d (%s)",
				c.cached, c.blocks, c.tokens, c.blockSize, got, c.want, c.why)
		}
	}
}

// TestTask1_NewBlocksRandom: random caches, pieces and block sizes,
// against the blocks counted one by one.
//
//grade:task 1 points 1
func TestTask1_NewBlocksRandom(t *testing.T) {
	defer check.Recover(t)
	r := rand.New(rand.NewPCG(15, 1))
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for range 2000 {
		b := Budget{BlockSize: 1 + r.IntN(32)}
		cached := r.IntN(300)
		q := Request{Seq: 1 + r.IntN(9), Cached: cached, Blocks: b.BlocksFor(cached)}
		if r.IntN(8) == 0 {
			q.Blocks += r.IntN(4) // more than its positions need
		}
		tokens := 1 + r.IntN(70)
		want := newBlocksRef(q, tokens, b)
		if got := NewBlocks(q, tokens, b); got != want {
			fails.Errorf("NewBlocks(Cached %d, Blocks %d; tokens %d; BlockSize %d) = %d; want %d (%s)",
				q.Cached, q.Blocks, tokens, b.BlockSize, got, want,
				fmt.Sprintf("%d positions need %d blocks, and it holds %d", q.Cached+tokens, b.BlocksFor(q.Cached+tokens), q.Blocks))
		}
	}
}
