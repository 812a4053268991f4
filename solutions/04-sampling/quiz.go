package sampling

// Checkpoint quiz (the last task). Set each AnswerN constant to the letter of
// the choice you pick: "a", "b", "c" or "d".

// Question 1. What does dividing the logits by a temperature T before softmax
// change, and what does it leave alone?
//
//	a) it changes which token is the most likely: below 1 it favours the rarer tokens
//	b) it makes the model more accurate at low temperatures, because the model then thinks harder
//	c) it sharpens the distribution (T < 1) or flattens it (T > 1), but never reorders the tokens, so greedy decoding picks the same token
//	d) nothing that matters: softmax only depends on the differences between logits, so dividing them all has no effect
const Answer1 = "\x63"

// Question 2. Why is top-p called adaptive, where top-k is not?
//
//	a) the number of tokens it keeps follows the model's certainty: one or two when the favourite holds most of the probability, many when it is spread out
//	b) p is learned during training for every prompt
//	c) it raises p after every token so that the text stays varied
//	d) it always keeps the same share of the vocabulary, whatever its size
const Answer2 = "\x61"

// Question 3. With min-p 0.1 and a favourite token of probability 0.6, which
// tokens can still be drawn?
//
//	a) the most likely tokens until their probabilities add up to 0.1, which is what top-p 0.1 keeps too
//	b) every token of probability at least 0.1, whatever the favourite's probability
//	c) every token of probability at least 0.6 − 0.1 = 0.5
//	d) every token of probability at least 0.06: the bar is relative to the favourite, whereas top-p adds probabilities up until the total passes p
const Answer3 = "\x64"

// Question 4. You send the same prompt twice at temperature 0.8, with no seed,
// and get two different answers. What happened?
//
//	a) the model's weights were updated between the two requests
//	b) the model computed the same probabilities both times; the sampler drew different random numbers and so took another path through them
//	c) at a temperature above 0 the model computes different logits on every run
//	d) the tokenizer split the prompt into different tokens the second time
const Answer4 = "\x62"
