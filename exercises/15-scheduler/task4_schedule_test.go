package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// scheduleCase is a step and the plan the rules give for it.
type scheduleCase struct {
	budget Budget
	reqs   []Request
	want   Plan
	why    string
}

func (c scheduleCase) check(fails *check.Limit) {
	s := Step{Requests: c.reqs, Budget: c.budget}
	got := scheduleCopy(s)
	if samePlan(got, c.want) {
		return
	}
	broken := ""
	if why := planProblem(s, got); why != "" {
		broken = "\n  " + why
	}
	fails.Errorf("Schedule(step) = %s\n  want %s (%s)%s\n%s", describePlan(got), describePlan(c.want), c.why, broken, describeStep(s))
}

// takes is a plan's list of takes: takes(7, 1, 3, 4) runs 1 token of
// sequence 7 and 4 of sequence 3.
func takes(seqTokens ...int) []Take {
	var takes []Take
	for i := 0; i+1 < len(seqTokens); i += 2 {
		takes = append(takes, Take{seqTokens[i], seqTokens[i+1]})
	}
	return takes
}

// checkRandomSteps asks Schedule for plans of n random steps and checks
// each against the rules.
func checkRandomSteps(t *testing.T, seed uint64, n int, step func(r *rand.Rand) Step) {
	t.Helper()
	r := rand.New(rand.NewPCG(15, seed))
	fails := check.NewLimit(t, 2)
	defer fails.Close()
	for range n {
		s := step(r)
		got := scheduleCopy(s)
		if why := planProblem(s, got); why != "" {
			fails.Errorf("%s", planFailure("Schedule(step)", s, got, why))
		}
	}
}

// TestTask4_Budgets: decoding steps first, then whole pieces of prompts,
// oldest first, while they fit the step's tokens and the free blocks; a
// piece that does not fit waits and a later one may run; the first take
// always fits.
//
//grade:task 4 points 3
func TestTask4_Budgets(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	b := Budget{Tokens: 8, Chunk: 4, BlockSize: 4, FreeBlocks: 10, MaxWait: 16}
	with := func(b Budget, edit func(*Budget)) Budget { edit(&b); return b }
	for _, c := range []scheduleCase{
		{b, []Request{promptReq(7, 1, 0, 0, 4, 10), decodingReq(3, 2, 9, 3), decodingReq(12, 3, 5, 2), promptReq(5, 4, 0, 0, 4, 4)},
			Plan{Run: takes(3, 1, 12, 1, 7, 4)},
			"the two decoding steps, then the oldest prompt's first piece, 4 of its 10 tokens; the next piece would make 10 tokens"},
		{with(b, func(b *Budget) { b.Tokens = 6 }),
			[]Request{decodingReq(2, 1, 9, 3), decodingReq(6, 2, 9, 3), decodingReq(4, 3, 3, 1), promptReq(9, 4, 0, 0, 4, 12), promptReq(1, 5, 0, 0, 3, 3)},
			Plan{Run: takes(2, 1, 6, 1, 4, 1, 1, 3)},
			"3 decoding steps; 9's piece of 4 would make 7 tokens, so it waits, and 1's piece of 3 makes 6"},
		{Budget{Tokens: 16, Chunk: 8, BlockSize: 4, FreeBlocks: 2, MaxWait: 16},
			[]Request{decodingReq(5, 1, 8, 2), promptReq(3, 2, 0, 0, 8, 20), promptReq(8, 3, 8, 2, 3, 3)},
			Plan{Run: takes(5, 1, 8, 3)},
			"5's cache is full: it takes 1 of the 2 free blocks; 3's piece of 8 needs 2 and waits; 8's last 3 tokens need 1"},
		{with(b, func(b *Budget) { b.Tokens = 3 }),
			[]Request{promptReq(7, 1, 0, 0, 4, 4), promptReq(2, 2, 0, 0, 1, 1)},
			Plan{Run: takes(7, 4)},
			"the first take runs even when its piece is larger than the step's tokens; then nothing fits"},
		{with(b, func(b *Budget) { b.FreeBlocks = 0 }),
			[]Request{decodingReq(3, 1, 5, 2), decodingReq(4, 2, 8, 2), promptReq(9, 3, 0, 0, 4, 4)},
			Plan{Run: takes(3, 1)},
			"no block is free: 3 fills its second block; 4 needs a new one, and the only blocks held are those of 3, which runs, and its own: it waits"},
		{with(b, func(b *Budget) { b.Tokens = 10 }),
			[]Request{promptReq(21, 1, 4, 1, 4, 5), promptReq(11, 2, 0, 0, 1, 9), promptReq(31, 3, 0, 0, 4, 4), decodingReq(41, 4, 1, 1)},
			Plan{Run: takes(41, 1, 21, 4, 11, 1, 31, 4)},
			"the decoding step, then every prompt's next piece: 4 tokens of 21's 5, 11's next piece of 1 (it is being computed again, in the pieces it ran in), and 31's 4"},
		{b, []Request{decodingReq(6, 1, 4, 1), decodingReq(2, 2, 12, 3)},
			Plan{Run: takes(6, 1, 2, 1)},
			"two decoding steps, each taking a new block"},
		{with(b, func(b *Budget) { b.FreeBlocks = 1 }),
			[]Request{promptReq(5, 1, 0, 0, 4, 9), promptReq(3, 2, 0, 0, 2, 2), promptReq(8, 3, 0, 0, 1, 1)},
			Plan{Run: takes(5, 4)},
			"the oldest prompt takes the one free block; the others need one each and wait"},
	} {
		c.check(fails)
	}
}

// TestTask4_BudgetsRandom: random steps in which the decoding steps fit
// the free blocks and nobody has waited too long, against the rules.
//
//grade:task 4 points 3
func TestTask4_BudgetsRandom(t *testing.T) {
	defer check.Recover(t)
	checkRandomSteps(t, 4, 3000, func(r *rand.Rand) Step { return randomStep(r, 0, 0) })
}

// TestTask5_Preemption: a decoding step that needs a block when none is
// free preempts the newest requests that hold blocks, as few as it needs,
// never itself or a request the plan runs; only when that makes it fit;
// and a piece of a prompt never preempts.
//
//grade:task 5 points 3
func TestTask5_Preemption(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	b := Budget{Tokens: 8, Chunk: 4, BlockSize: 4, FreeBlocks: 0, MaxWait: 16}
	for _, c := range []scheduleCase{
		{b, []Request{decodingReq(30, 1, 8, 2), decodingReq(70, 2, 6, 2), promptReq(50, 3, 4, 1, 4, 6), promptReq(10, 4, 8, 2, 4, 8)},
			Plan{Run: takes(30, 1, 70, 1, 50, 4), Preempt: []int{10}},
			"30's cache is full and no block is free: the newest request, 10, gives its 2 blocks back; 30 takes one, and 50's piece the other"},
		{b, []Request{decodingReq(2, 1, 8, 2), decodingReq(4, 2, 12, 3), promptReq(6, 3, 4, 1, 4, 8), promptReq(8, 4, 4, 1, 4, 8), promptReq(1, 5, 0, 0, 4, 4)},
			Plan{Run: takes(2, 1, 4, 1), Preempt: []int{8, 6}},
			"each decoding step needs a block: 2 preempts 8 (1, the newest, holds none), then 4 preempts 6; 1's piece needs a block and waits"},
		{b, []Request{decodingReq(5, 1, 5, 2), decodingReq(3, 2, 8, 2), promptReq(6, 3, 0, 0, 4, 4)},
			Plan{Run: takes(5, 1)},
			"3 needs a block; the only blocks held are those of 5, which runs, and its own: nobody is preempted, and 3 waits"},
		{b, []Request{promptReq(2, 1, 4, 1, 4, 8), promptReq(9, 2, 8, 2, 4, 4)},
			Plan{},
			"each piece needs a block and none is free; a piece of a prompt does not preempt, so nothing runs (the server then lets the oldest preempt: task 6)"},
		{Budget{Tokens: 8, Chunk: 4, BlockSize: 2, FreeBlocks: 1, MaxWait: 16},
			[]Request{promptReq(13, 1, 4, 2, 4, 6), decodingReq(17, 2, 4, 2), decodingReq(19, 3, 2, 1), decodingReq(11, 4, 6, 3)},
			Plan{Run: takes(17, 1, 19, 1, 13, 4), Preempt: []int{11}},
			"1 block is free, and 17 takes it; 19 needs one too, and preempts the newest request that holds blocks and is not in the plan: 11, though it is a decoding step; of 11's 3 blocks, 19 takes 1 and 13's piece 2"},
		{Budget{Tokens: 2, Chunk: 4, BlockSize: 4, FreeBlocks: 0, MaxWait: 16},
			[]Request{decodingReq(1, 1, 5, 2), decodingReq(2, 2, 6, 2), decodingReq(3, 3, 8, 2), promptReq(4, 4, 4, 1, 4, 4)},
			Plan{Run: takes(1, 1, 2, 1)},
			"the step's 2 tokens go to 1 and 2; 3 does not fit the tokens, so it preempts nobody"},
	} {
		c.check(fails)
	}
}

// TestTask5_PreemptionRandom: random steps with few free blocks, against
// the rules.
//
//grade:task 5 points 2
func TestTask5_PreemptionRandom(t *testing.T) {
	defer check.Recover(t)
	checkRandomSteps(t, 5, 3000, func(r *rand.Rand) Step { return randomStep(r, 0, 1+r.IntN(3)) })
}

// TestTask6_Starvation: a request that has waited MaxWait steps runs before
// all others, decoding steps included, and may preempt, as many as it
// needs, even a decoding step; those that waited too long run in the order
// they arrived.
//
//grade:task 6 points 2
func TestTask6_Starvation(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	b := Budget{Tokens: 6, Chunk: 4, BlockSize: 4, FreeBlocks: 5, MaxWait: 4}
	for _, c := range []scheduleCase{
		{b, []Request{decodingReq(11, 1, 9, 3), decodingReq(12, 2, 9, 3), decodingReq(13, 3, 9, 3), decodingReq(14, 4, 9, 3), withWaited(promptReq(20, 5, 0, 0, 4, 4), 4)},
			Plan{Run: takes(20, 4, 11, 1, 12, 1)},
			"20 has waited MaxWait steps: its piece runs first, and the decoding steps fill the 2 tokens left"},
		{Budget{Tokens: 8, Chunk: 4, BlockSize: 4, FreeBlocks: 0, MaxWait: 4},
			[]Request{withWaited(promptReq(4, 1, 0, 0, 4, 4), 5), decodingReq(8, 2, 6, 2), promptReq(6, 3, 4, 1, 4, 8)},
			Plan{Run: takes(4, 4, 8, 1), Preempt: []int{6}},
			"4 waited too long and needs a block: it preempts 6, the newest holding blocks"},
		{Budget{Tokens: 12, Chunk: 8, BlockSize: 4, FreeBlocks: 0, MaxWait: 4},
			[]Request{withWaited(promptReq(2, 1, 0, 0, 8, 8), 4), decodingReq(5, 2, 4, 1), decodingReq(9, 3, 6, 2), promptReq(3, 4, 4, 1, 4, 6)},
			Plan{Run: takes(2, 8, 5, 1), Preempt: []int{3, 9}},
			"2 needs 2 blocks: 3 gives 1, then 9, a decoding step, 2 more; 5 takes the block left over"},
		{Budget{Tokens: 5, Chunk: 4, BlockSize: 4, FreeBlocks: 4, MaxWait: 4},
			[]Request{withWaited(promptReq(7, 1, 0, 0, 4, 4), 6), withWaited(decodingReq(3, 2, 9, 3), 4), decodingReq(1, 3, 9, 3)},
			Plan{Run: takes(7, 4, 3, 1)},
			"7 and 3 waited too long and run first, in the order they arrived; 1 no longer fits"},
		{Budget{Tokens: 12, Chunk: 8, BlockSize: 4, FreeBlocks: 0, MaxWait: 4},
			[]Request{withWaited(promptReq(2, 1, 0, 0, 8, 8), 4), decodingReq(5, 2, 3, 1)},
			Plan{Run: takes(5, 1)},
			"2 needs 2 blocks, and preempting 5 would give only 1: nobody is preempted, 2 waits, and 5 runs"},
		{Budget{Tokens: 4, Chunk: 4, BlockSize: 4, FreeBlocks: 0, MaxWait: 4},
			[]Request{withWaited(promptReq(2, 1, 4, 1, 4, 4), 4), withWaited(promptReq(8, 2, 4, 1, 4, 4), 4)},
			Plan{Run: takes(2, 4), Preempt: []int{8}},
			"nothing else could run, and 2 and 8 starve: the oldest runs, preempting the other"},
	} {
		c.check(fails)
	}
}

// TestTask6_StarvationRandom: random steps in which some requests have
// waited too long, against the rules.
//
//grade:task 6 points 2
func TestTask6_StarvationRandom(t *testing.T) {
	defer check.Recover(t)
	checkRandomSteps(t, 6, 4000, func(r *rand.Rand) Step { return randomStep(r, 1+r.IntN(4), r.IntN(4)) })
}

var _ = fmt.Sprint
