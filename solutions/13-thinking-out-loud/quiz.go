package thinking

// The checkpoint quiz of lesson 13. Set each answer to the letter of the
// choice you think is right ("a", "b", "c" or "d"); go test checks it.

// Question 1. A transformer does the same fixed amount of computation for
// every token it writes. Why can writing the steps before the answer still
// let it solve problems it cannot answer directly?
//
//	a) the steps tell the model how many digits the sum will have, and that
//	   length is what the direct model fails to work out
//	b) each token it writes is read back as input for the next: a problem
//	   too big for one pass is split over many passes
//	c) the steps model was trained on more tokens, since its examples are
//	   longer, and so it simply learned addition better
//	d) the steps model has more layers than the direct one, so each of its
//	   forward passes can carry more of the work
const Answer1 = "\x62"

// Question 2. What does a majority vote over N sampled answers cost,
// compared with a single answer?
//
//	a) about N times the tokens and the time: each sample is a whole
//	   generation, the same loop run N times
//	b) nothing extra: the N answers are N draws from one forward pass's
//	   distribution, all taken at once
//	c) about log₂ N times as much, since the samples share every token they
//	   agree on and branch only after that
//	d) one more prefill per sample; the tokens they generate are shared, so
//	   decoding is paid for once
const Answer2 = "\x61"

// Question 3. When does taking the majority of more samples stop helping?
//
//	a) never: with enough samples the majority answer is always the right
//	   one, however often a single sample gets it wrong
//	b) once a sample is right more than half the time: one sample is then
//	   likelier right than wrong, so further votes add nothing more
//	c) as soon as N is larger than the number of digits in the problem,
//	   since each extra vote can fix only one digit of the answer
//	d) when the right answer is rarer than the commonest wrong one, more
//	   votes make the wrong one win more surely; when it is nearly always
//	   right, little is left to fix
const Answer3 = "\x64"

// Question 4. Why are the samples of a vote drawn at a temperature above 0?
//
//	a) at temperature 0 the model cannot write its steps and falls back to
//	   answering directly
//	b) each sample at temperature 1 is more likely to be right than the
//	   greedy answer would be
//	c) at temperature 0 every sample is the same text, so the vote counts
//	   one answer N times
//	d) so that every sample reaches a different answer, which the vote can
//	   then weigh against the others
const Answer4 = "\x63"
