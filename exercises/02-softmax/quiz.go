package softmax

// The checkpoint quiz of lesson 2. Set each answer to the letter of the
// choice you think is right ("a", "b", "c" or "d"); go test checks it.

// Question 1. What is a logit?
//
//	a) the probability of a token, before it is rounded
//	b) the logarithm of a token's probability, always zero or negative
//	c) a raw score the model's last layer gives each token of the vocabulary; it can be any real number
//	d) the position of a token in the vocabulary, sorted by how likely it is
const Answer1 = ""

// Question 2. Softmax turns the logits [2, 1, -3] into probabilities. Which
// statement holds for any logits, not just these?
//
//	a) every probability is between 0 and 1, they sum to 1, and a higher logit always gets a higher probability
//	b) the largest logit always gets more than half of the probability
//	c) a logit of -3 gets probability 0, since probabilities cannot be negative
//	d) the probabilities are proportional to the logits: 2 gets twice as much as 1
const Answer2 = ""

// Question 3. Why does a softmax implementation subtract the largest logit
// from every logit before exponentiating?
//
//	a) to make the probabilities add up to 1
//	b) to give the most likely token a little more probability
//	c) to turn the result into log-probabilities
//	d) so that exp cannot overflow (the largest term becomes exp(0) = 1); the probabilities do not change, since only differences between logits matter
const Answer3 = ""

// Question 4. A sampler divides the logits by a temperature of 0.5 before
// softmax. What changes, and what does not?
//
//	a) the model gets more accurate, because it is less random
//	b) the gaps between logits double, so the most likely token gets more probability; the order of the tokens, and so the greedy pick, stays the same
//	c) the order of the tokens can change, so the greedy pick can change too
//	d) nothing changes: softmax only depends on differences between logits
const Answer4 = ""
