package softmax

// The checkpoint quiz of lesson 2. Set each answer to the letter of the
// choice you think is right ("a", "b", "c" or "d"); go test checks it.

// Question 1. What is a logit?
//
//	a) the log of a token's probability, so it is never above 0, and the
//	   largest one marks the likeliest token
//	b) a score between −1 and 1 that the last layer gives each token, 1 for
//	   the token the model prefers most
//	c) the probability the last layer gives each token, before softmax
//	   rescales them so that they add up to 1
//	d) a raw score the last layer gives each token of the vocabulary: any
//	   real number, negative too
const Answer1 = ""

// Question 2. Softmax turns the logits [2, 1, -3] into probabilities. Which
// statement holds for any logits, not just these?
//
//	a) the largest logit always gets more than half of the probability, and
//	   the other tokens share what is left
//	b) each probability lies strictly between 0 and 1, they add up to 1,
//	   and a higher logit gets a higher probability
//	c) a negative logit such as -3 gets probability 0, since a probability
//	   can never be negative; the others add up to 1
//	d) the probabilities keep the logits' proportions: a logit of 2 gets
//	   twice the share of a logit of 1
const Answer2 = ""

// Question 3. Why does a softmax implementation subtract the largest logit
// from every logit before exponentiating?
//
//	a) to keep exp from overflowing: the largest term becomes exp(0) = 1;
//	   since only differences between logits matter, no probability changes
//	b) to make the probabilities add up to 1: without the shift the
//	   exponentials sum to more than 1, and the result is not a
//	   distribution
//	c) to sharpen the distribution: moving every logit down gives the
//	   favourite a larger share, as a temperature below 1 would
//	d) to turn the logits into log-probabilities: after the shift every
//	   value is at most 0, as the log of a probability must be
const Answer3 = ""

// Question 4. A sampler divides the logits by a temperature of 0.5 before
// softmax. What changes, and what does not?
//
//	a) the gaps between logits halve, which flattens the distribution
//	   toward uniform; the greedy pick stays the same
//	b) nothing changes: softmax depends only on differences between logits,
//	   and a common divisor leaves those as they are
//	c) the gaps between logits double, so the favourite gains probability;
//	   the tokens keep their order, so greedy picks the same one
//	d) the model itself gets more accurate: at a lower temperature it
//	   weighs its choices more carefully, and so it makes fewer mistakes
const Answer4 = ""
