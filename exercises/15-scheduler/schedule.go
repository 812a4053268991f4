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
	return Plan{}
}
