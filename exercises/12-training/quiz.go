package training

// The checkpoint quiz of lesson 12. Set each answer to the letter of the
// choice you think is right ("a", "b", "c" or "d"); go test checks it.

// Question 1. A freshly initialised model with a vocabulary of V tokens
// scores about ln V nats per token on any text. Why?
//
//	a) its random weights give some random token most of the probability,
//	   and that token is the right one only once in V
//	b) ln V is the largest loss a model can have at one position, and a
//	   model that has not been trained is as wrong as it gets
//	c) its weights are small and random, so its logits are all near 0:
//	   softmax gives each token about 1/V, and −ln(1/V) = ln V
//	d) before training, the loss averages −ln p over all V tokens of the
//	   vocabulary rather than over the text's real next tokens
const Answer1 = ""

// Question 2. At one position the loss is −ln p(next). What does a loss of
// ln 2 ≈ 0.69 at that position mean?
//
//	a) the model gave the real next token a probability of 0.69, about two
//	   chances in three
//	b) the model gave the real next token a probability of 1/2; a loss of 0
//	   would mean probability 1
//	c) the model gave its own favourite token a probability of 1/2,
//	   whatever the real next token got there
//	d) the model gave its own favourite token a probability of 0.69, and
//	   the real next token less
const Answer2 = ""

// Question 3. The gradient of −ln p(target) with respect to the logits is
// softmax(logits) − onehot(target). What does one step against it do to the
// logits?
//
//	a) it raises the target's logit by lr·p_target and lowers each other
//	   token's by lr·(1 − p_i), so the likely targets gain the most
//	b) it raises the target's logit by lr and leaves all the other logits
//	   alone, since only the target's probability is in the loss
//	c) it raises the target's logit by lr and lowers every other token's
//	   logit by the same small amount, lr/V
//	d) it raises the target's logit by lr·(1 − p_target) and lowers each
//	   other token's by lr·p_i: the likeliest wrong ones drop most
const Answer3 = ""

// Question 4. While training, the loss measured on each step's own batch
// jumps up and down, while the validation loss, measured every few steps, is
// smooth. Which tells you how good the model is?
//
//	a) the validation loss: it is measured on the same text every time,
//	   text the model never trains on; each training loss depends on the
//	   windows its step drew
//	b) the training loss: it is measured at every step, so over a whole run
//	   it has been measured on far more text than the validation loss
//	c) either one: the validation loss is only the training loss averaged
//	   over the last few steps, which is why its line is smooth
//	d) neither: a loss only describes the training run itself; only reading
//	   samples of generated text shows how good a model is
const Answer4 = ""

// Question 5. Training scores all 64 positions of a window in one forward
// pass, while generation produces one token per pass. Why can training do
// that?
//
//	a) in training every position attends to the whole window, later tokens
//	   included, so a single pass sees all of the text, to its end
//	b) the whole text is known in advance, so each position's prediction
//	   can be computed at once, attending only to those before it
//	c) training switches attention off, so the 64 positions do not depend
//	   on one another and can be computed side by side
//	d) generation could make many new tokens per pass as well, but engines
//	   avoid it, because it would take far more memory than they have
const Answer5 = ""
