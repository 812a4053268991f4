// Package schedule runs the generations of many users as one: continuous
// batching. A decoding step of one sequence reads every weight of the
// model to make one token; a Scheduler runs the next token of every
// sequence it serves, and chunks of new prompts, as one batched forward
// pass (engine.Pass), which reads the weights once for all of them.
//
// Each generation runs as usual, on its own goroutine, with its own
// sampler, stops and constraint (package engine/decoding), and asks its
// Seq for the logits after its tokens (decoding.Shared). The scheduler
// gathers what the sequences ask, runs a step, and hands each its
// logits. Sequences join between steps and leave at once.
//
// A step runs every sequence's next token, then whole chunks of waiting
// prompts, oldest first, up to PrefillTokens; the oldest waiting chunk
// always runs, so no prompt waits for ever. A prompt is cut into chunks
// at the same places whatever else runs (every Chunk tokens from its
// start), and a pass gives each row the same numbers whatever rows run
// beside it: a sequence's logits are the same bits alone or among
// others.
package schedule
