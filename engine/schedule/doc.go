// Package schedule runs the generations of many users as one: continuous
// batching. A decoding step of one sequence reads every weight of the
// model to make one token; a Scheduler runs the next token of every
// sequence it serves, and pieces of new prompts, as one batched forward
// pass (engine.Pass), which reads the weights once for all of them.
//
// Each generation runs as usual, on its own goroutine, with its own
// sampler, stops and constraint (package engine/decoding), and asks its
// Seq for the logits after its tokens (decoding.Shared). The scheduler
// gathers what the sequences ask, runs a step, and hands each its
// logits. Sequences join between steps and leave at once.
//
// What a step runs is a Policy's choice (FCFS by default; policy.go):
// decoding steps first, then pieces of prompts, oldest first, within the
// step's tokens (StepTokens) and the free KV blocks, with no request
// passed over more than MaxWait steps.
//
// Keys and values live in one engine.BlockPool of KVMemory bytes, in
// blocks of BlockSize positions: a sequence holds the blocks it has
// filled. When the decoding steps need more blocks than are free, the
// newest requests are preempted: their blocks go back, and they are
// computed again later, in the pieces they were computed in. Full blocks
// stay in the pool's prefix cache after their sequence ends, so a prompt
// that starts as an earlier one did (a system prompt, the earlier turns
// of a chat) computes only the rest.
//
// A sequence's logits are the same bits alone or among others: a prompt
// is cut into pieces at the same places whatever else runs (every Chunk
// tokens from its start), a pass gives each row the same numbers whatever
// rows run beside it, blocks give the numbers of a cache in one piece,
// and the prefix cache shares a block only where its numbers are those
// the prompt would compute itself.
package schedule
