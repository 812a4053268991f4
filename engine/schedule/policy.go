package schedule

import (
	"fmt"
	"slices"
)

// A Policy is the heart of a scheduler: before each step it is shown the
// requests waiting to run and what the step may use, and picks what the
// step runs. The Scheduler checks every Plan against the rules below and
// runs FCFS's plan instead of one that breaks them (counting it in
// Stats.Refused), so a Policy cannot stall the scheduler or lose a
// sequence's text.
//
// A plan keeps the rules when:
//   - each Take names a waiting request once, for 1 to its Next tokens;
//   - each preempted request is named once and does not also run;
//   - the takes hold at most Budget.Tokens tokens, unless there is only
//     one take;
//   - the new blocks the takes need, BlocksFor(Cached+Tokens) − Blocks
//     each, are at most Budget.FreeBlocks plus the blocks the preempted
//     requests give back;
//   - some request runs whenever one could.
type Policy func(Step) Plan

// Step is what a Policy sees before a step.
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

// FCFS is the scheduler's default Policy, first come, first served:
//
//  1. a request that has waited MaxWait steps runs before all others;
//  2. then every decoding step, in the order they arrived;
//  3. then whole pieces of prompts, oldest first, each while it fits the
//     step's tokens and the free blocks; one that does not fit waits, and
//     the oldest always runs;
//  4. when the decoding steps need more blocks than are free, the newest
//     requests that hold blocks are preempted, until they fit.
func FCFS(st Step) Plan {
	b := st.Budget
	var plan Plan
	tokens, free := 0, b.FreeBlocks
	taken := map[int]bool{}
	need := func(r Request, n int) int { return max(b.BlocksFor(r.Cached+n)-r.Blocks, 0) }
	// Preempting frees blocks; it takes the newest first, and never a
	// request already in the plan.
	preempt := func(self, want int) bool {
		var victims []Request
		got := free
		for i := len(st.Requests) - 1; i >= 0 && got < want; i-- {
			r := st.Requests[i]
			if r.Seq == self || taken[r.Seq] || r.Blocks == 0 || slices.Contains(plan.Preempt, r.Seq) {
				continue
			}
			victims = append(victims, r)
			got += r.Blocks
		}
		if got < want {
			return false
		}
		for _, r := range victims {
			plan.Preempt = append(plan.Preempt, r.Seq)
		}
		free = got
		return true
	}
	take := func(r Request, n int) {
		plan.Run = append(plan.Run, Take{r.Seq, n})
		taken[r.Seq] = true
		tokens += n
		free -= need(r, n)
	}
	order := slices.Clone(st.Requests)
	// Those that waited too long first, then decoding steps, then the
	// rest, each in order of arrival (a stable sort keeps it).
	rank := func(r Request) int {
		switch {
		case r.Waited >= b.MaxWait:
			return 0
		case r.Decoding():
			return 1
		}
		return 2
	}
	slices.SortStableFunc(order, func(x, y Request) int { return rank(x) - rank(y) })
	for _, r := range order {
		if slices.Contains(plan.Preempt, r.Seq) {
			continue
		}
		n := r.Next
		fits := tokens+n <= b.Tokens || len(plan.Run) == 0
		switch {
		case rank(r) < 2 && fits:
			if need(r, n) > free && !preempt(r.Seq, need(r, n)) {
				continue
			}
			take(r, n)
		case fits && need(r, n) <= free:
			take(r, n)
		}
	}
	return plan
}

// check says what breaks the rules in plan, "" when nothing does.
func check(st Step, plan Plan) string {
	reqs := map[int]Request{}
	for _, r := range st.Requests {
		reqs[r.Seq] = r
	}
	b := st.Budget
	free, tokens, need := b.FreeBlocks, 0, 0
	seen := map[int]bool{}
	for _, s := range plan.Preempt {
		r, ok := reqs[s]
		if !ok || seen[s] {
			return fmt.Sprintf("preempts sequence %d, which is not a waiting request or is named twice", s)
		}
		seen[s] = true
		free += r.Blocks
	}
	for _, t := range plan.Run {
		r, ok := reqs[t.Seq]
		switch {
		case !ok:
			return fmt.Sprintf("runs sequence %d, which has no waiting request", t.Seq)
		case seen[t.Seq]:
			return fmt.Sprintf("names sequence %d twice", t.Seq)
		case t.Tokens < 1 || t.Tokens > r.Next:
			return fmt.Sprintf("runs %d tokens of sequence %d, whose next piece has %d", t.Tokens, t.Seq, r.Next)
		}
		seen[t.Seq] = true
		tokens += t.Tokens
		need += max(b.BlocksFor(r.Cached+t.Tokens)-r.Blocks, 0)
	}
	switch {
	case tokens > b.Tokens && len(plan.Run) > 1:
		return fmt.Sprintf("runs %d tokens in a step of at most %d", tokens, b.Tokens)
	case need > free:
		return fmt.Sprintf("needs %d new blocks, with %d free", need, free)
	case len(plan.Run) == 0 && len(FCFS(st).Run) > 0:
		return "runs nothing, though a request could run"
	}
	return ""
}
