package scheduler

// The checkpoint quiz of lesson 15. Set each answer to the letter of the
// choice you think is right ("a", "b", "c" or "d"); go test checks it.

// Question 1. As more users share a server, the tokens it makes per
// second grow, while the tokens per second each user gets fall. Why?
//
//	a) batching makes each row cheaper to compute: the matrix products of
//	   a batch skip the multiplications that its rows have in common with
//	   each other, and the more users there are, the more of them it skips
//	b) a step reads every weight once, however many rows it runs, so a
//	   step for many users costs little more than a step for one; but each
//	   step takes longer, and each user gets one token a step
//	c) the server runs each user on a core of its own: more users keep
//	   more cores busy, while they share one memory bus, which slows each
//	d) a user's tokens are counted only once the whole answer is done, and
//	   with more users more answers end within each second, though each of
//	   them ends later than it would have on its own
const Answer1 = "\x62"

// Question 2. A prefix cache keeps full KV blocks after their sequence
// ends. What does it save, and when can it not help?
//
//	a) the decoding steps of answers already given: a user who asks a
//	   question again gets the cached answer; it cannot help with a
//	   question nobody has asked before
//	b) memory: sequences that share a system prompt hold one copy of the
//	   model's weights between them; it cannot help when every user sends a
//	   prompt of their own
//	c) computing the same start of a prompt again (a system prompt, a
//	   chat's earlier turns); it cannot help prompts that start
//	   differently, a shared start shorter than a block, or evicted blocks
//	d) the sampling of the first token: the logits after a shared prompt
//	   are kept with its blocks, so the first token of the answer comes at
//	   once; it cannot help at temperature 0, which needs no sampling
const Answer2 = "\x63"

// Question 3. At temperature 0, the same prompt got two different answers
// from a busy server. How can that be, and what must an engine do so that
// it cannot happen?
//
//	a) what runs beside a row changes the order its sums are added in, or
//	   the kernel that computes them, and floating-point addition is not
//	   associative, so a near-tie can flip; the engine must give a row the
//	   same numbers whatever runs beside it (batch-invariant kernels, and
//	   prompts cut at fixed places)
//	b) temperature 0 still draws from a random number generator, so two
//	   requests differ unless they send the same seed; the engine must
//	   seed every request with the same number
//	c) the other users' tokens enter each user's attention in a batched
//	   step, so an answer depends on what the others ask; the engine must
//	   run every user in a forward pass of its own
//	d) on a busy server the users share KV blocks, and one user's block
//	   can be overwritten by another's; the engine must give each user a
//	   cache of its own, made in one piece
const Answer3 = "\x61"

// Question 4. When the KV blocks run out, the scheduler preempts the
// newest requests: their blocks go back to the pool. Why does a user whose
// request was preempted never see a difference in its answer?
//
//	a) its answer so far is thrown away, and the request is generated
//	   again from the start with the same seed and settings, which gives
//	   exactly the same text, so the user sees nothing change
//	b) the newest requests are those that have not been sent a token yet,
//	   so there is nothing of their answers to lose
//	c) while it waits for blocks, the sequence keeps decoding without its
//	   cache, attending to its earlier tokens directly, which gives the
//	   same numbers as the cache would have given
//	d) its tokens are kept, and only their keys and values go back: they
//	   are computed again later, in the pieces they first ran in, so the
//	   numbers and the tokens after them are the same
const Answer4 = "\x64"
