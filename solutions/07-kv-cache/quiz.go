package kvcache

// The checkpoint quiz of lesson 07. Set each constant to the letter of the
// answer you choose ("a", "b", "c" or "d"); go test -run Quiz checks them.

// Question 1. Why can the keys and values of earlier tokens be kept from
// step to step, and what does each new step still compute?
//
//	a) a token's key and value hardly change as the text grows, so reusing
//	   them is a close approximation; each step recomputes the query of
//	   every position
//	b) attention is causal, so a position's key and value depend only on
//	   the tokens up to it and never change; each step computes Q, K and V
//	   for the new token
//	c) the cache holds the logits of earlier steps, so a new step only runs
//	   the new token's hidden state through the vocabulary projection
//	d) keys and values depend on the weights alone, not on the text, so
//	   they are computed once per model; each step computes only the new
//	   token's query and output
const Answer1 = "\x62"

// Question 2. Generating n tokens from a one-token prompt, how many token
// positions run through the model without a KV cache, and how many with one?
//
//	a) n either way: every step runs one new position; the cache only saves
//	   reading the prompt again
//	b) n² without, since each of n steps reruns n positions; n²/2 with,
//	   since the cache halves every step
//	c) 2n without, since the keys and the values each need a pass; n with,
//	   since the cache keeps one of the two
//	d) n(n+1)/2 ≈ n²/2 without, since step i reruns all i positions; n
//	   with, one per step
const Answer2 = "\x64"

// Question 3. A model has 40 layers, 40 query heads, 8 KV heads and a head
// size of 128, with 16-bit values. How large is the KV cache of one sequence
// of 32,000 tokens, and without grouped-query attention?
//
//	a) about 2.6 GB; without grouped-query attention, five times as much,
//	   about 13 GB
//	b) about 5.2 GB either way: grouped-query attention saves arithmetic,
//	   not memory
//	c) about 5.2 GB; without grouped-query attention, five times as much,
//	   about 26 GB
//	d) about 5.2 GB; without grouped-query attention, eight times as much,
//	   about 42 GB
const Answer3 = "\x63"

// Question 4. Why is prefill faster per token than decode, though both run
// the same model over the same number of tokens?
//
//	a) prefill multiplies each weight matrix by all the prompt's tokens at
//	   once, so every weight read serves many tokens; decode reads all
//	   weights for one
//	b) prefill skips attention: the prompt's tokens are all known in
//	   advance, so they do not need to look at each other
//	c) each decode step also pays for softmax and sampling over the whole
//	   vocabulary, which prefill skips, and those take most of a step's
//	   time
//	d) prefill runs the weights at a lower precision, since no token is
//	   sampled at the prompt's positions and small errors do not matter
//	   there
const Answer4 = "\x61"

// Question 5. Why does streaming improve perceived latency but not remove
// the cost of decoding?
//
//	a) streaming overlaps prefill with decoding, so the first token leaves
//	   before the whole prompt has been read by the model
//	b) the reader sees each token as soon as it is made, but each still
//	   needs its own step, and the last comes no sooner
//	c) each streamed step reads only the weights the new token needs, so
//	   steps get cheaper but stay sequential
//	d) once the first token is shown, the later ones are decoded several at
//	   a time, though each still costs a pass
const Answer5 = "\x62"
