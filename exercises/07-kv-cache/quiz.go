package kvcache

// The checkpoint quiz of lesson 07. Set each constant to the letter of the
// answer you choose ("a", "b", "c" or "d"); go test -run Quiz checks them.

// Question 1. Why can the keys and values of earlier tokens be kept from
// step to step, and what does each new step still compute?
//
//	a) attention is causal, so position i's key and value depend only on tokens 0…i and never change; each step computes Q, K and V for the new token only and attends over the cache
//	b) keys and values are the same for every prompt, so they are computed once when the model loads
//	c) the cache keeps the logits of earlier steps, so each step only runs the vocabulary projection
//	d) keys and values change only a little from step to step, so reusing old ones is a close approximation
const Answer1 = ""

// Question 2. Generating n tokens from a one-token prompt, how many token
// positions run through the model without a KV cache, and how many with
// one?
//
//	a) n either way: the cache saves memory, not work
//	b) n² without, n²/2 with
//	c) 1 + 2 + … + n = n(n+1)/2 ≈ n²/2 without, since step i reruns all i positions; n with
//	d) 2n without (keys and values), n with
const Answer2 = ""

// Question 3. A model has 40 layers, 40 query heads, 8 KV heads and a head
// size of 128, with 16-bit values. How large is the KV cache of one
// sequence of 32,000 tokens, and without grouped-query attention?
//
//	a) about 1.3 GB either way: grouped-query attention saves arithmetic, not memory
//	b) about 2.6 GB; without grouped-query attention about 13 GB
//	c) about 26 GB; with 8 KV heads only the keys shrink, to about 16 GB
//	d) about 5.2 GB; with one KV head per query head five times as much, about 26 GB
const Answer3 = ""

// Question 4. Why is prefill faster per token than decode, though both run
// the same model over the same number of tokens?
//
//	a) prefill skips attention: the prompt's tokens do not need to see each other
//	b) prefill multiplies each weight matrix by all the prompt's tokens at once, so every weight read from memory serves many tokens; decode reads every weight again for a single token
//	c) prefill runs a smaller draft of the model
//	d) prompt tokens are shorter than generated ones
const Answer4 = ""

// Question 5. Why does streaming improve perceived latency but not remove
// the cost of decoding?
//
//	a) streaming skips the prefill, but decoding still runs
//	b) streaming sends tokens in batches, which the network handles faster
//	c) the reader sees each token as soon as it is made, but every token still takes its own sequential decode step, and the last one arrives no sooner
//	d) streaming lowers the cost of each step by reading fewer weights
const Answer5 = ""
