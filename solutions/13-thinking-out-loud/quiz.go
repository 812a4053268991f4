package thinking

// The checkpoint quiz of lesson 13. Set each answer to the letter of the
// choice you think is right ("a", "b", "c" or "d"); go test checks it.

// Question 1. A transformer does the same fixed amount of computation for
// every token it writes. Why can writing the steps before the answer still
// let it solve problems it cannot answer directly?
//
//	a) a longer text makes every forward pass do more work, so each token is computed more carefully
//	b) every token it writes is read back as input for the next one: a problem too big for one forward pass is split over many passes, each with the earlier results in its context
//	c) the steps model has more parameters than the direct one
//	d) writing steps lowers the sampler's temperature
const Answer1 = "\x62"

// Question 2. What does a majority vote over N sampled answers cost,
// compared with a single answer?
//
//	a) nothing extra: all N samples come out of one forward pass
//	b) one more prefill of the prompt; the generated tokens are shared by the N samples
//	c) about log₂ N times as much
//	d) about N times the tokens and the time: each sample is a whole generation, the same loop run N times
const Answer2 = "\x64"

// Question 3. When does taking the majority of more samples stop helping?
//
//	a) when a sample is right less often than the most common wrong answer turns up (below 1/2 if the wrong samples agree), more votes make the wrong answer win more surely; and when a sample is nearly always right, more votes have little left to fix
//	b) never: with enough samples the majority is always right
//	c) as soon as N exceeds the number of digits in the problem
//	d) whenever the temperature is above 0
const Answer3 = "\x61"

// Question 4. Why are the samples of a vote drawn at a temperature above 0?
//
//	a) at temperature 0 the model cannot write its steps
//	b) a higher temperature makes each sample more likely to be right
//	c) at temperature 0 (greedy decoding) the N samples are the same text, so the vote only counts one answer N times
//	d) so that every sample gives a different answer
const Answer4 = "\x63"
