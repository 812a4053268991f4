package sampling

// Checkpoint quiz (the last task). Set each AnswerN constant to the letter of
// the choice you pick: "a", "b", "c" or "d".

// Question 1. What does dividing the logits by a temperature T before
// softmax change, and what does it leave alone?
//
//	a) it sharpens the distribution (T < 1) or flattens it (T > 1), but
//	   never reorders the tokens, so greedy picks the same token
//	b) above T = 1 it can reorder the tokens: flattening lets a runner-up
//	   overtake the favourite, so the greedy pick may then change
//	c) it makes the model more accurate when T is low, because the model
//	   then computes its logits with more care
//	d) it changes how many tokens the model scores: a low T scores only the
//	   likely ones, a high T the whole vocabulary
const Answer1 = "\x61"

// Question 2. Why is top-p called adaptive, where top-k is not?
//
//	a) it keeps the same share p of the vocabulary at every step, so the
//	   cut adapts to a vocabulary of any size
//	b) p is set by the model for each prompt, as learned in training, so
//	   the cut adapts to what the prompt needs
//	c) how many tokens it keeps follows the model's certainty: one or two
//	   when it is sure, many when it is not
//	d) it raises p a little after every token it draws, so the text keeps
//	   some variety however long it gets
const Answer2 = "\x63"

// Question 3. With min-p 0.1 and a favourite token of probability 0.6, which
// tokens can still be drawn?
//
//	a) every token of probability at least 0.1: min-p is a fixed floor that
//	   does not depend on the favourite
//	b) every token of probability at least 0.5 (0.6 − 0.1): the bar sits
//	   0.1 below the favourite's probability
//	c) the likeliest tokens until their probabilities add up to 0.1, the
//	   same set that top-p 0.1 would keep
//	d) every token of probability at least 0.06: the bar is 0.1 times the
//	   favourite's, and moves with it
const Answer3 = "\x64"

// Question 4. You send the same prompt twice at temperature 0.8, with no
// seed, and get two different answers. What happened?
//
//	a) at a temperature above 0 the model adds noise to its logits, so each
//	   run computed different probabilities
//	b) the model computed the same probabilities both times; the sampler
//	   drew other random numbers and took another path
//	c) the model remembered its first answer within the session and steered
//	   away from repeating it word for word
//	d) the first request updated the model's weights a little, so the
//	   second one ran on a slightly different model
const Answer4 = "\x62"
