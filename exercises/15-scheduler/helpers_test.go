package scheduler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// The tests check Schedule's plans against the rules, as the course
// engine's scheduler checks a Policy's (engine/schedule's check), and more
// closely: a plan must be the one the rules imply, and the rules are
// checked one by one, so that a failure says which one a plan broke.

// decodingReq is a decoding step: one token of sequence seq, whose cache holds
// cached positions in blocks blocks.
func decodingReq(seq int, arrived int64, cached, blocks int) Request {
	return Request{Seq: seq, Arrived: arrived, Cached: cached, Blocks: blocks, Next: 1, Left: 1}
}

// promptReq is a request to run left more tokens of a prompt, next of them
// in its next piece, for a sequence whose cache holds cached positions in
// blocks blocks (0 and 0 for a new prompt).
func promptReq(seq int, arrived int64, cached, blocks, next, left int) Request {
	return Request{Seq: seq, Arrived: arrived, Cached: cached, Blocks: blocks, Next: next, Left: left}
}

// withWaited is r, having waited n steps.
func withWaited(r Request, n int) Request {
	r.Waited = n
	return r
}

// groupRef is the group a request is served in: 0 for one that waited too
// long, 1 for a decoding step, 2 for the rest.
func groupRef(r Request, maxWait int) int {
	switch {
	case r.Waited >= maxWait:
		return 0
	case r.Left == 1 && r.Cached > 0:
		return 1
	}
	return 2
}

// orderRef is the requests in the order a step serves them: by rank, then
// in the order they arrived (the order of reqs).
func orderRef(reqs []Request, maxWait int) []Request {
	out := slices.Clone(reqs)
	slices.SortStableFunc(out, func(x, y Request) int { return groupRef(x, maxWait) - groupRef(y, maxWait) })
	return out
}

// newBlocksRef is the new blocks a take of tokens tokens of r needs,
// counted block by block.
func newBlocksRef(r Request, tokens int, b Budget) int {
	held := 0
	for end := 0; end < r.Cached+tokens; end += b.BlockSize {
		held++
	}
	if held < r.Blocks {
		return 0
	}
	return held - r.Blocks
}

// kindText says what a request is, for messages.
func kindText(r Request, maxWait int) string {
	var what string
	if r.Left == 1 && r.Cached > 0 {
		what = "decoding"
	} else {
		what = "prompt"
	}
	if r.Waited >= maxWait {
		what += ", waited too long"
	}
	return what
}

// describeRequest writes a request on one line.
func describeRequest(r Request, maxWait int) string {
	return fmt.Sprintf("seq %d: arrived %d, cached %d in %s, next %d of %d, waited %d (%s)",
		r.Seq, r.Arrived, r.Cached, blocksText(r.Blocks), r.Next, r.Left, r.Waited, kindText(r, maxWait))
}

// newBlocksText writes a number of new blocks: 1 new block, 3 new blocks.
func newBlocksText(n int) string {
	if n == 1 {
		return "1 new block"
	}
	return fmt.Sprintf("%d new blocks", n)
}

// blocksText writes a number of blocks: 1 block, 3 blocks.
func blocksText(n int) string {
	if n == 1 {
		return "1 block"
	}
	return fmt.Sprintf("%d blocks", n)
}

// describeStep writes a step on a few indented lines: its budget, then
// its requests in the order they arrived.
func describeStep(s Step) string {
	b := s.Budget
	var lines []string
	lines = append(lines, fmt.Sprintf("  step: at most %d tokens, chunks of %d, blocks of %d positions, %s free, MaxWait %d; the requests:",
		b.Tokens, b.Chunk, b.BlockSize, blocksText(b.FreeBlocks), b.MaxWait))
	for _, r := range s.Requests {
		lines = append(lines, "    "+describeRequest(r, b.MaxWait))
	}
	if len(s.Requests) == 0 {
		lines = append(lines, "    (none)")
	}
	return strings.Join(lines, "\n")
}

// describePlan writes a plan: run [seq 7: 1, seq 3: 4], preempt [5].
func describePlan(p Plan) string {
	var run []string
	for _, t := range p.Run {
		run = append(run, fmt.Sprintf("seq %d: %d", t.Seq, t.Tokens))
	}
	return fmt.Sprintf("run [%s], preempt %v", strings.Join(run, ", "), orEmpty(p.Preempt))
}

func orEmpty(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// samePlan reports whether two plans run the same takes and preempt the
// same sequences, in any order.
func samePlan(got, want Plan) bool {
	a, b := slices.Clone(got.Run), slices.Clone(want.Run)
	byTake := func(x, y Take) int {
		if x.Seq != y.Seq {
			return x.Seq - y.Seq
		}
		return x.Tokens - y.Tokens
	}
	slices.SortFunc(a, byTake)
	slices.SortFunc(b, byTake)
	p, q := slices.Clone(got.Preempt), slices.Clone(want.Preempt)
	slices.Sort(p)
	slices.Sort(q)
	return slices.Equal(a, b) && slices.Equal(p, q)
}

// cloneStep is a copy of s that shares nothing with it.
func cloneStep(s Step) Step {
	return Step{Requests: slices.Clone(s.Requests), Budget: s.Budget}
}

// scheduleCopy calls Schedule with a copy of s, and copies what it returns.
func scheduleCopy(s Step) Plan {
	p := Schedule(cloneStep(s))
	return Plan{Run: slices.Clone(p.Run), Preempt: slices.Clone(p.Preempt)}
}

// planProblem says which rule plan breaks in step s, or "" when it keeps them
// all. The first rules are those of engine/schedule's check, which the
// course's server applies to every plan; the others say that the plan is
// the one the rules imply: decoding steps first, whole pieces of prompts
// oldest first within the budgets, preemption only when a decoding step
// (or a request that waited too long) needs it, newest first, and no more
// than it needs.
func planProblem(s Step, p Plan) string {
	b := s.Budget
	reqs := map[int]Request{}
	for _, r := range s.Requests {
		reqs[r.Seq] = r
	}
	preempted := map[int]bool{}
	freed := 0
	for _, seq := range p.Preempt {
		r, ok := reqs[seq]
		switch {
		case !ok:
			return fmt.Sprintf("it preempts sequence %d, which has no waiting request", seq)
		case preempted[seq]:
			return fmt.Sprintf("it preempts sequence %d twice", seq)
		case r.Blocks == 0:
			return fmt.Sprintf("it preempts sequence %d, which holds no blocks: that frees nothing, and throws its work away", seq)
		}
		preempted[seq] = true
		freed += r.Blocks
	}
	took := map[int]int{}
	tokens, need := 0, 0
	for _, t := range p.Run {
		r, ok := reqs[t.Seq]
		switch {
		case !ok:
			return fmt.Sprintf("it runs sequence %d, which has no waiting request", t.Seq)
		case preempted[t.Seq]:
			return fmt.Sprintf("it both runs and preempts sequence %d", t.Seq)
		case took[t.Seq] > 0:
			return fmt.Sprintf("it runs sequence %d twice", t.Seq)
		case t.Tokens != r.Next:
			return fmt.Sprintf("it runs %d tokens of sequence %d, whose next piece has %d: a step runs whole pieces", t.Tokens, t.Seq, r.Next)
		}
		took[t.Seq] = t.Tokens
		tokens += t.Tokens
		need += newBlocksRef(r, t.Tokens, b)
	}
	switch {
	case tokens > b.Tokens && len(p.Run) > 1:
		return fmt.Sprintf("it runs %d tokens in a step of at most %d", tokens, b.Tokens)
	case need > b.FreeBlocks+freed:
		return fmt.Sprintf("its takes need %s; %d are free, and its preemptions free %d more", newBlocksText(need), b.FreeBlocks, freed)
	}

	// Preemption: the newest first, and only as many as the decoding
	// steps and the requests that waited too long need.
	if len(p.Preempt) > 0 {
		oldest := reqs[p.Preempt[0]]
		for _, seq := range p.Preempt {
			if reqs[seq].Arrived < oldest.Arrived {
				oldest = reqs[seq]
			}
		}
		for _, u := range s.Requests {
			if u.Blocks > 0 && took[u.Seq] == 0 && !preempted[u.Seq] && u.Arrived > oldest.Arrived {
				return fmt.Sprintf("it preempts sequence %d (arrived %d) and not sequence %d, which arrived later (%d), holds blocks and does not run: preempt the newest first",
					oldest.Seq, oldest.Arrived, u.Seq, u.Arrived)
			}
		}
		left, firstNeed := b.FreeBlocks+freed, 0
		for _, r := range s.Requests {
			if n := took[r.Seq]; n > 0 && groupRef(r, b.MaxWait) < 2 {
				left -= newBlocksRef(r, n, b)
				firstNeed += newBlocksRef(r, n, b)
			}
		}
		if left >= oldest.Blocks {
			return fmt.Sprintf("it preempts sequence %d, whose %s it does not need: the decoding steps and the requests that waited too long that it runs need %s, and %d are free without them (a piece of a prompt never preempts)",
				oldest.Seq, blocksText(oldest.Blocks), newBlocksText(firstNeed), left-oldest.Blocks+firstNeed)
		}
	}

	// Each request the plan leaves out did not fit when its turn came:
	// tokens and blocks as the requests served before it left them.
	tokensBefore, needBefore, runsBefore := 0, 0, 0
	ranBefore := map[int]bool{}
	for _, r := range orderRef(s.Requests, b.MaxWait) {
		if n, ran := took[r.Seq]; ran {
			tokensBefore += n
			needBefore += newBlocksRef(r, n, b)
			ranBefore[r.Seq] = true
			runsBefore++
			continue
		}
		if preempted[r.Seq] || runsBefore > 0 && tokensBefore+r.Next > b.Tokens {
			continue
		}
		rk := groupRef(r, b.MaxWait)
		nb := newBlocksRef(r, r.Next, b)
		before := fmt.Sprintf("after what is served before it (%d tokens, %s)", tokensBefore, newBlocksText(needBefore))
		if runsBefore == 0 {
			before = "as the first take"
		}
		lead := "it leaves out"
		if len(p.Run) == 0 {
			lead = "it runs nothing, though it could run"
		}
		if rk == 2 {
			if free := b.FreeBlocks + freed - needBefore; nb <= free {
				return fmt.Sprintf("%s sequence %d's piece of %d tokens, which fits %s: it needs %s, and %d are free", lead, r.Seq, r.Next, before, newBlocksText(nb), free)
			}
			continue
		}
		avail := b.FreeBlocks - needBefore
		for _, u := range s.Requests {
			if u.Seq != r.Seq && !ranBefore[u.Seq] {
				avail += u.Blocks
			}
		}
		if nb <= avail {
			what := "the decoding step of sequence " + fmt.Sprint(r.Seq)
			if rk == 0 {
				what = fmt.Sprintf("sequence %d, which has waited %d steps (MaxWait %d)", r.Seq, r.Waited, b.MaxWait)
			}
			how := "it needs no more blocks than are free"
			if nb > b.FreeBlocks+freed-needBefore {
				how = fmt.Sprintf("it needs %s, which preempting the newest requests that hold blocks can free", newBlocksText(nb))
			}
			return fmt.Sprintf("%s %s, which fits %s: %s", lead, what, before, how)
		}
	}
	return ""
}

// planFailure is the message for a plan that breaks a rule.
func planFailure(call string, s Step, got Plan, why string) string {
	return fmt.Sprintf("%s = %s: %s\n%s", call, describePlan(got), why, describeStep(s))
}

// randomStep makes a step with 1 to 8 requests in the order they arrived,
// with sequence numbers in no order, blocks of 2 to 5 positions, chunks of
// 2 to 6 tokens and a token budget of 2 to 12; waitedTooLong says how
// often a request has waited MaxWait steps or more (1 in waitedTooLong,
// never when 0), and tight how short the free blocks are (0: every
// decoding step fits without preempting; larger: fewer free).
func randomStep(r *rand.Rand, waitedTooLong, tight int) Step {
	b := Budget{BlockSize: 2 + r.IntN(4), Chunk: 2 + r.IntN(5), MaxWait: 3 + r.IntN(6)}
	b.Tokens = max(b.Chunk, 2+r.IntN(11))
	if r.IntN(6) == 0 {
		b.Tokens = 1 + r.IntN(b.Chunk) // a budget smaller than a piece: the first take still runs
	}
	n := 1 + r.IntN(8)
	seqs := r.Perm(40)
	arrived := int64(r.IntN(50))
	var s Step
	s.Budget = b
	decodeNeed := 0
	for i := range n {
		arrived += 1 + int64(r.IntN(3))
		var q Request
		switch r.IntN(3) {
		case 0: // a decoding step
			cached := 1 + r.IntN(5*b.BlockSize)
			q = decodingReq(seqs[i]+1, arrived, cached, b.BlocksFor(cached))
		case 1: // a new prompt, or one computed again after a preemption
			left := 1 + r.IntN(4*b.Chunk)
			q = promptReq(seqs[i]+1, arrived, 0, 0, min(left, b.Chunk), left)
			if r.IntN(4) == 0 && left > 1 {
				q.Next = 1 + r.IntN(min(left, b.Chunk)) // recomputed in the pieces it ran in
			}
		default: // the rest of a prompt, some of which has run
			cached := b.Chunk * (1 + r.IntN(3))
			left := 2 + r.IntN(3*b.Chunk)
			q = promptReq(seqs[i]+1, arrived, cached, b.BlocksFor(cached), min(left, b.Chunk), left)
		}
		q.Waited = r.IntN(b.MaxWait)
		if waitedTooLong > 0 && r.IntN(waitedTooLong) == 0 {
			q.Waited = b.MaxWait + r.IntN(3)
		}
		if q.Left == 1 && q.Cached > 0 {
			decodeNeed += newBlocksRef(q, 1, b)
		}
		s.Requests = append(s.Requests, q)
	}
	switch {
	case tight == 0:
		s.Budget.FreeBlocks = decodeNeed + r.IntN(12)
	default:
		s.Budget.FreeBlocks = r.IntN(1 + 8/tight)
	}
	return s
}

// A script is users arriving at a server: the simulator below runs it a
// step at a time, with Schedule choosing each step's batch, as the
// course's server does (engine/schedule), without a model: what it
// computes is how many positions each sequence's cache holds.
type script struct {
	name   string
	budget Budget // Tokens, Chunk, BlockSize and MaxWait; FreeBlocks is the simulator's
	pool   int    // the blocks of the pool
	users  []user
}

// user is one user of a script: at the step at, a prompt of prompt
// tokens, then answer decoding steps. (The prompt's last piece gives the
// answer's first token, and each decoding step runs one token of the
// answer and gives the next.)
type user struct {
	seq            int
	at             int
	prompt, answer int
}

// describe writes a script for a failure message.
func (sc script) describe() string {
	var us []string
	for _, u := range sc.users {
		us = append(us, fmt.Sprintf("seq %d at step %d: a prompt of %d, then %d decoding steps", u.seq, u.at, u.prompt, u.answer))
	}
	b := sc.budget
	return fmt.Sprintf("script %q: at most %d tokens a step, chunks of %d, a pool of %d blocks of %d positions, MaxWait %d; users: %s",
		sc.name, b.Tokens, b.Chunk, sc.pool, b.BlockSize, b.MaxWait, strings.Join(us, "; "))
}

// seqState is a sequence of the simulator: its user, its cache, and its
// request while one waits.
type seqState struct {
	u       user
	cached  int   // positions in its cache
	runs    []int // the pieces its cache was computed in
	pieces  []int // its request's pieces still to run
	decoded int   // decoding steps done
	arrived int64 // its request's number
	waited  int   // its request's Waited
	joined  bool
	done    int // the step its last token ran in, or -1
}

// outcome is what a script's run came to.
type outcome struct {
	steps      int   // steps run
	done       []int // for each user, the step its answer's last token ran in
	preempted  int   // preemptions
	mostWaited int   // the largest Waited Schedule was shown
	failure    string
}

// simulate runs sc with Schedule, checking every plan, until every user
// has its answer or limit steps have run.
func simulate(sc script, limit int) outcome {
	b := sc.budget
	seqs := make([]*seqState, len(sc.users))
	for i, u := range sc.users {
		seqs[i] = &seqState{u: u, done: -1}
	}
	var next int64 = 1
	cut := func(n int) []int {
		var pieces []int
		for a := 0; a < n; a += b.Chunk {
			pieces = append(pieces, min(b.Chunk, n-a))
		}
		return pieces
	}
	out := outcome{done: make([]int, len(sc.users))}
	fail := func(step int, format string, args ...any) outcome {
		out.failure = fmt.Sprintf("step %d: %s\n  %s", step, fmt.Sprintf(format, args...), sc.describe())
		return out
	}
	for step := 0; ; step++ {
		finished := true
		for _, q := range seqs {
			if q.u.at == step {
				q.joined, q.pieces, q.arrived = true, cut(q.u.prompt), next
				next++
			}
			finished = finished && q.done >= 0
		}
		if finished {
			out.steps = step
			for i, q := range seqs {
				out.done[i] = q.done
			}
			return out
		}
		if step >= limit {
			var late []string
			for _, q := range seqs {
				if q.done < 0 {
					late = append(late, fmt.Sprintf("seq %d (cached %d of %d, its request waited %d steps)", q.u.seq, q.cached, q.u.prompt+q.u.answer, q.waited))
				}
			}
			return fail(step, "after %d steps, users still wait for their answers: %s", limit, strings.Join(late, ", "))
		}
		// The step Schedule sees: the waiting requests, in the order
		// they arrived.
		var waiting []*seqState
		used := 0
		for _, q := range seqs {
			used += b.BlocksFor(q.cached)
			if q.joined && q.done < 0 {
				waiting = append(waiting, q)
			}
		}
		slices.SortFunc(waiting, func(x, y *seqState) int { return int(x.arrived - y.arrived) })
		build := func() Step {
			s := Step{Budget: b}
			s.Budget.FreeBlocks = sc.pool - used
			for _, q := range waiting {
				left := 0
				for _, p := range q.pieces {
					left += p
				}
				s.Requests = append(s.Requests, Request{Seq: q.u.seq, Arrived: q.arrived, Cached: q.cached,
					Blocks: b.BlocksFor(q.cached), Next: q.pieces[0], Left: left, Waited: q.waited})
				out.mostWaited = max(out.mostWaited, q.waited)
			}
			return s
		}
		if len(waiting) == 0 {
			continue
		}
		s := build()
		plan := scheduleCopy(s)
		if why := planProblem(s, plan); why != "" {
			return fail(step, "%s", planFailure("Schedule(step)", s, plan, why))
		}
		if len(plan.Run) == 0 {
			// Nothing could run: the oldest request is starving, and
			// may now preempt others, as the course's server does.
			waiting[0].waited = max(waiting[0].waited, b.MaxWait)
			s = build()
			plan = scheduleCopy(s)
			if why := planProblem(s, plan); why != "" {
				return fail(step, "%s", planFailure("Schedule(step)", s, plan, why))
			}
			if len(plan.Run) == 0 {
				return fail(step, "nothing could run, even with the oldest request starving\n%s", describeStep(s))
			}
		}
		find := func(seq int) *seqState {
			for _, q := range waiting {
				if q.u.seq == seq {
					return q
				}
			}
			panic("no sequence") // problem checked the plan
		}
		for _, seq := range plan.Preempt {
			q := find(seq)
			q.pieces = append(slices.Clone(q.runs), q.pieces...)
			q.runs, q.cached = nil, 0
			out.preempted++
		}
		ran := map[int]bool{}
		for _, t := range plan.Run {
			q := find(t.Seq)
			q.cached += t.Tokens
			q.runs = append(q.runs, t.Tokens)
			q.pieces = q.pieces[1:]
			ran[t.Seq] = true
		}
		// Each sequence whose request has run entirely asks for its next
		// token, in the order the users came; those that did not run
		// waited.
		for _, q := range seqs {
			switch {
			case !q.joined || q.done >= 0:
			case ran[q.u.seq] && len(q.pieces) == 0:
				if q.cached == q.u.prompt+q.u.answer {
					q.done, q.cached, q.runs = step, 0, nil
					continue
				}
				q.pieces, q.arrived, q.waited = []int{1}, next, 0
				next++
			case !ran[q.u.seq]:
				q.waited++
			}
		}
	}
}

// randomScript has 2 to 9 users arriving over the first steps, with
// prompts of 1 to 40 tokens and answers of 1 to 30, a pool from just
// enough for the longest user to enough for all, and budgets as
// randomStep's.
func randomScript(r *rand.Rand, name string) script {
	b := Budget{BlockSize: 2 + r.IntN(4), Chunk: 2 + r.IntN(7), MaxWait: 2 + r.IntN(8)}
	b.Tokens = b.Chunk + r.IntN(8)
	sc := script{name: name, budget: b}
	seqs := r.Perm(90)
	most, all := 0, 0
	for i := range 2 + r.IntN(8) {
		u := user{seq: seqs[i] + 10, at: r.IntN(12), prompt: 1 + r.IntN(40), answer: r.IntN(30)}
		if r.IntN(4) == 0 {
			u.at = 0 // a crowd at the start
		}
		sc.users = append(sc.users, u)
		most = max(most, b.BlocksFor(u.prompt+u.answer))
		all += b.BlocksFor(u.prompt + u.answer)
	}
	sc.pool = most + r.IntN(all-most+1)
	return sc
}
