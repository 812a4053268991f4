package speculative

// The checkpoint quiz of notebook 10 (Task 6). Set each constant to the
// letter of the choice you pick: "a", "b", "c" or "d".

// Question 1. Why can the target model check γ proposed tokens in one pass,
// when it cannot generate γ tokens in one pass?
//
//	a) checking runs the target at lower precision, which makes a pass over
//	   γ+1 tokens about as cheap as one
//	b) checking needs only the target's top token at each position, so it
//	   can skip the vocabulary projection
//	c) the proposals are known in advance, so every position's input exists
//	   and all γ+1 go through together
//	d) the draft has already computed the target's keys and values, so the
//	   target only reads them from the cache
const Answer1 = ""

// Question 2. At temperature 0 the speculative output is the target's own
// greedy output, token for token. Why, and what guarantees the same at
// temperature > 0?
//
//	a) a proposal survives only if it is the target's own top token, and
//	   the first mismatch is replaced by the target's top token; at
//	   temperature > 0, accepting x with probability min(1, p(x)/q(x)) and
//	   replacing a rejection by a fresh draw from p keeps every token
//	   distributed as p
//	b) a proposal survives if it is one of the target's few likeliest
//	   tokens, and the first mismatch is replaced by the target's top
//	   token; at temperature > 0, accepting x with probability
//	   min(1, p(x)/q(x)) and replacing a rejection by a fresh draw from p
//	   keeps every token distributed as p
//	c) a proposal survives if it is one of the target's few likeliest
//	   tokens, and the first mismatch is replaced by the target's top
//	   token; at temperature > 0, accepting x with probability
//	   min(1, p(x)/q(x)) and replacing a rejection by a draw from
//	   normalise(max(0, p − q)) keeps every token distributed as p
//	d) a proposal survives only if it is the target's own top token, and
//	   the first mismatch is replaced by the target's top token; at
//	   temperature > 0, accepting x with probability min(1, p(x)/q(x)) and
//	   replacing a rejection by a draw from normalise(max(0, p − q)) keeps
//	   every token distributed as p
const Answer2 = ""

// Question 3. Each checked proposal is accepted with probability α,
// independently. How many tokens does one target pass yield on average with
// α = 0.8 and γ = 4, and with α = 0.3 and γ = 4?
//
//	a) 4.2 and 2.2: γα accepted proposals on average, plus the target's own
//	   token each time
//	b) 3.36 and 1.43: (1 − α^(γ+1)) / (1 − α), as a round ends at its first
//	   rejection
//	c) 2.36 and 0.43: only the proposals the target accepts count, not its
//	   own token
//	d) 5 and 5: every target pass checks γ + 1 positions, whatever the
//	   value of α is
const Answer3 = ""

// Question 4. What makes a good draft model, and why can speculative
// decoding be slower than plain decoding, as it can be with the course's
// small models on a CPU?
//
//	a) a good draft shares the target's tokenizer, costs far less per step
//	   and often agrees with it; it is slower when a draft step is not
//	   cheap next to a target step, or verifying γ+1 tokens costs well over
//	   one step
//	b) the closer the draft is to the target the better, ideally the target
//	   itself, since α is then 1; it can be slower only when γ is set too
//	   low to pay back the draft's steps
//	c) any draft with the same vocabulary works about as well as another;
//	   it is slower only at temperature 0, where a proposal must match the
//	   target's top token exactly and so is rejected more often
//	d) it is never slower: every round yields at least one token, as a
//	   plain step does, so at worst it keeps pace with plain decoding; a
//	   good draft is simply one that agrees with the target as often as
//	   possible
const Answer4 = ""
