package scheduler

// Schedule picks what the step s runs: the policy of the course engine's
// default scheduler, FCFS (first come, first served). It goes through the
// requests in Order(s.Requests, s.Budget.MaxWait), keeping count of the
// tokens the plan runs and of the blocks still free (s.Budget.FreeBlocks
// at the start), and for each request:
//
//   - A request preempted earlier in the step does not run.
//   - It runs its whole next piece, Take{r.Seq, r.Next}, when that fits
//     the step's tokens (s.Budget.Tokens, with the tokens already taken)
//     and the blocks it needs (NewBlocks) fit the free blocks. The first
//     take of a step always fits the token budget, whatever its size. A
//     piece that does not fit waits for a later step, and the requests
//     after it may still run.
//   - A decoding step, or a request that has waited too long (Waited >=
//     MaxWait), whose tokens fit but whose blocks do not, preempts: the
//     newest requests that hold blocks give them back (Victims; never
//     itself, a request already in the plan or one already preempted),
//     until its blocks fit, and then it runs. When even that cannot make
//     them fit, nobody is preempted and it waits. A piece of a prompt
//     never preempts.
//
// A plan runs nothing only when nothing may run under these rules (the
// server then treats the oldest request as having waited too long, and
// asks again). The order of the takes in Run, and of the sequences in
// Preempt, does not matter. Tasks 4 to 7.
func Schedule(s Step) Plan {
	b := s.Budget
	var plan Plan
	var keep []int // in the plan, or preempted
	tokens, free := 0, b.FreeBlocks
	for _, r := range Order(s.Requests, b.MaxWait) {
		if contains(plan.Preempt, r.Seq) {
			continue
		}
		n := r.Next
		if tokens+n > b.Tokens && len(plan.Run) > 0 {
			continue
		}
		need := NewBlocks(r, n, b)
		if need > free {
			if r.Waited < b.MaxWait && !r.Decoding() {
				continue
			}
			victims, ok := Victims(s.Requests, append(keep[:len(keep):len(keep)], r.Seq), free, need)
			if !ok {
				continue
			}
			for _, v := range victims {
				plan.Preempt = append(plan.Preempt, v)
				keep = append(keep, v)
				free += blocksOf(s.Requests, v)
			}
		}
		plan.Run = append(plan.Run, Take{r.Seq, n})
		keep = append(keep, r.Seq)
		tokens += n
		free -= need
	}
	return plan
}

// blocksOf is the blocks the request of sequence seq holds.
func blocksOf(reqs []Request, seq int) int {
	for _, r := range reqs {
		if r.Seq == seq {
			return r.Blocks
		}
	}
	return 0
}
