package training

// The checkpoint quiz of lesson 12. Set each answer to the letter of the
// choice you think is right ("a", "b", "c" or "d"); go test checks it.

// Question 1. A freshly initialised model with a vocabulary of V tokens
// scores about ln V nats per token on any text. Why?
//
//	a) because training has not yet removed the tokens it will never use
//	b) its weights are small and random, so its logits are all close to 0: softmax gives every token about 1/V, and −ln(1/V) = ln V whatever token comes next
//	c) ln V is the largest loss a model can have at one position
//	d) the loss is averaged over the V tokens of the vocabulary instead of over the positions of the text
const Answer1 = ""

// Question 2. At one position the loss is −ln p(next). What does a loss of
// ln 2 ≈ 0.69 at that position mean?
//
//	a) the model picked the right token with a probability of 69%
//	b) the model was wrong, since any loss above 0 is a wrong guess
//	c) two tokens had the same logit
//	d) the model gave the token that really came next a probability of 1/2; a loss of 0 would mean probability 1, and since p ≤ 1 the loss is never negative
const Answer2 = ""

// Question 3. The gradient of −ln p(target) with respect to the logits is
// softmax(logits) − onehot(target). What does one step against it do to the
// logits?
//
//	a) it raises the target's logit by lr·(1 − p_target) and lowers every other token's logit by lr·p_i, so the wrong tokens that took the most probability are pushed down the most
//	b) it raises the target's logit and leaves the others alone
//	c) it lowers every other token's logit by the same amount, lr/V
//	d) it sets the target's logit to the largest one, so the next loss is 0
const Answer3 = ""

// Question 4. While training, the loss measured on each step's own batch
// jumps up and down, while the validation loss, measured every few steps,
// is smooth. Which tells you how good the model is?
//
//	a) the training loss, because it is measured at every step
//	b) both say the same: the validation loss is the training loss averaged over several steps
//	c) the validation loss: it is measured on the same text every time, text the model never trains on; each batch's training loss depends on which random windows the step drew
//	d) neither: only samples of generated text show how good a model is
const Answer4 = ""

// Question 5. Training scores all 64 positions of a window in one forward
// pass, while generation produces one token per pass. Why can training do
// that?
//
//	a) training uses a smaller model than generation
//	b) in training the whole text is known in advance, so every position's prediction can be computed at once (each position attends only to those before it); generation must pick a token before it can predict the one after
//	c) training does not use attention, so the positions are independent
//	d) generation could do it too, but it would use more memory
const Answer5 = ""
