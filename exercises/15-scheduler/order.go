package scheduler

// Order returns the requests in the order a step serves them, in a new
// slice, leaving reqs as it is. reqs are in the order they arrived. Task 2.
//
//  1. First every request that has waited too long: Waited >= maxWait.
//  2. Then every other decoding step (Decoding reports which): each user
//     already reading an answer gets its next token.
//  3. Then the rest: pieces of prompts, new ones and those of sequences
//     computed again after a preemption.
//
// Within each group, the requests keep the order they arrived in.
func Order(reqs []Request, maxWait int) []Request {
	return nil
}
