package scheduler

// NewBlocks returns how many blocks of the pool a take of tokens tokens of
// r needs beyond those r's sequence holds already: the blocks that hold
// r.Cached+tokens positions (b.BlocksFor), less r.Blocks, and never less
// than 0. A block holds b.BlockSize positions, and a sequence fills its
// last block before it takes another, so a decoding step takes a new block
// only when its cache has just filled one. Task 1.
//
// Example: with blocks of 4 positions, a sequence that has cached 6
// positions holds 2 blocks; a piece of 2 tokens fits in the room left in
// its second block (NewBlocks = 0), a piece of 3 needs a third block
// (NewBlocks = 1).
func NewBlocks(r Request, tokens int, b Budget) int {
	return max(b.BlocksFor(r.Cached+tokens)-r.Blocks, 0)
}

// Victims chooses the requests to preempt so that need blocks are free,
// when free blocks are free now: the newest first. It goes through reqs
// (which are in the order they arrived) from the newest, the last, to
// the oldest, passing over the sequences in keep (the request that needs
// the blocks, those already in the step's plan, those already preempted)
// and the requests that hold no blocks (preempting them frees nothing),
// and takes each one's blocks until free plus what it took is at least
// need; it returns their sequence numbers, in the order it took them, and
// true. Task 3.
//
// When free is at least need already, nobody is preempted: it returns
// nil and true. When even every request it may take would not free
// enough, it returns nil and false: preempting them would throw their
// work away for nothing.
func Victims(reqs []Request, keep []int, free, need int) ([]int, bool) {
	var victims []int
	for i := len(reqs) - 1; i >= 0 && free < need; i-- {
		r := reqs[i]
		if r.Blocks == 0 || contains(keep, r.Seq) {
			continue
		}
		victims = append(victims, r.Seq)
		free += r.Blocks
	}
	if free < need {
		return nil, false
	}
	return victims, true
}

// contains reports whether seqs holds seq.
func contains(seqs []int, seq int) bool {
	for _, s := range seqs {
		if s == seq {
			return true
		}
	}
	return false
}
