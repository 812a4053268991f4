package speculative

// The checkpoint quiz of notebook 10 (Task 6). Set each constant to the
// letter of the choice you pick: "a", "b", "c" or "d".

// Question 1. Why can the target model check γ proposed tokens in one pass,
// when it cannot generate γ tokens in one pass?
//
//	a) checking runs the target at lower precision, which is γ times faster
//	b) checking needs only the target's top token, not its whole distribution
//	c) the draft has already computed the target's keys and values, so the
//	   target only reads them
//	d) the proposed tokens are known in advance, so every position's input
//	   exists and all γ+1 positions go through the model together, like a
//	   prefill; generating needs token i before it can compute token i+1
const Answer1 = "\x64"

// Question 2. At temperature 0 the speculative output is the target's own
// greedy output, token for token. Why, and what guarantees the same at
// temperature > 0?
//
//	a) a proposal survives only if it is the target's own top token, and the
//	   first disagreement is replaced by the target's top token; with
//	   sampling, accepting with probability min(1, p/q) and replacing a
//	   rejection by a draw from normalise(max(0, p − q)) makes every token
//	   distributed exactly as p
//	b) the draft was trained on the target's outputs, so it never proposes a
//	   token the target would not pick, at any temperature
//	c) at temperature 0 the target regenerates every token after the draft;
//	   at temperature > 0 nothing does: the output mixes p and q
//	d) the draft runs at temperature 0 while the target samples, so the
//	   draft's choices are always a subset of the target's
const Answer2 = "\x61"

// Question 3. Each checked proposal is accepted with probability α,
// independently. How many tokens does one target pass yield on average
// with α = 0.8 and γ = 4, and with α = 0.3 and γ = 4?
//
//	a) 4.2 and 2.2
//	b) 3.2 and 1.2
//	c) 3.36 and 1.43
//	d) 5 and 5: every pass checks γ + 1 positions
const Answer3 = "\x63"

// Question 4. What makes a good draft model, and why can speculative
// decoding be slower than plain decoding, as it can be with the course's
// small models on a CPU?
//
//	a) the larger the draft the better, since a larger draft agrees with the
//	   target more often; it is slower only when γ is below 4
//	b) a good draft shares the target's tokenizer, is much cheaper than the
//	   target and often agrees with it; when a draft step is not cheap next
//	   to a target step, or verifying γ+1 tokens costs well over one step
//	   (a small target limited by arithmetic, not memory), a round costs
//	   more than the tokens it saves
//	c) any draft works equally well; speculative decoding is slower only at
//	   temperature 0, where proposals are rejected more often
//	d) it can never be slower: every round yields at least one token, just
//	   as one plain decoding step does
const Answer4 = "\x62"
