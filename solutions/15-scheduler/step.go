// Package scheduler is exercise 15 of the Token by Token track: the heart
// of a server's scheduler. Before each step of a server that runs many
// users' generations as one batch (continuous batching), the scheduler is
// shown the requests waiting to run and what the step may use, and picks
// the step's batch: which decoding steps run, which pieces of prompts run
// beside them (chunked prefill), and, when the KV blocks run out, whose
// blocks are given back (preemption), without ever passing anyone over for
// too long.
//
// This file is given: there is nothing to write in it. Its types are the
// course engine's own (package engine/schedule), field for field, so that
// a Schedule of yours can run inside the course's real server. Task 1
// counts the blocks a piece of a prompt needs (blocks.go), task 2 puts the
// requests in the order they are served (order.go), task 3 chooses whose
// blocks to take back (blocks.go), and tasks 4 to 7 are Schedule
// (schedule.go).
//
//grade:given
package scheduler

// Step is what Schedule sees before a step.
type Step struct {
	// Requests are the requests waiting to run, in the order they
	// arrived: a sequence asks for one at a time.
	Requests []Request
	Budget   Budget
}

// Request is one sequence's request for the logits after its tokens.
type Request struct {
	Seq     int   // the sequence's number, unique while it is open
	Arrived int64 // the request's number: a later request has a larger one
	// Cached is the positions the sequence's cache holds, and Blocks the
	// blocks it holds for them.
	Cached, Blocks int
	// Next is how many tokens its next piece has: 1 for a decoding step,
	// up to Chunk for a piece of a prompt (a prompt is cut every Chunk
	// tokens from its start, so that its numbers do not depend on what
	// runs beside it). Left is how many it has still to run, all pieces.
	Next, Left int
	// Waited is how many steps ran while the request could have run
	// and did not.
	Waited int
}

// Decoding reports whether the request is a decoding step: one new token
// of a sequence whose earlier tokens are in its cache.
func (r Request) Decoding() bool { return r.Left == 1 && r.Cached > 0 }

// Budget is what one step may use.
type Budget struct {
	Tokens     int // tokens (rows) one step runs at most
	Chunk      int // the most tokens of one prompt a step runs
	BlockSize  int // positions a KV block holds
	FreeBlocks int // blocks the step's sequences may still take
	MaxWait    int // the Waited after which a request must run first
}

// BlocksFor is the number of blocks that hold positions positions.
func (b Budget) BlocksFor(positions int) int { return (positions + b.BlockSize - 1) / b.BlockSize }

// Plan is what a step runs: some tokens of some requests, and the
// requests whose sequences give their blocks back, to be computed again
// from their first token when there is room.
type Plan struct {
	Run     []Take
	Preempt []int // sequence numbers
}

// Take is tokens of one request, the first Tokens tokens of what it has
// left.
type Take struct{ Seq, Tokens int }
