package structured

// The checkpoint quiz of lesson 14. Set each answer to the letter of the
// choice you think is right ("a", "b", "c" or "d"); go test checks it.

// Question 1. Why does constrained decoding give the tokens that are not
// allowed the logit -Inf before each token, instead of letting the model
// write freely and trying again whenever the output is not valid?
//
//	a) both give valid output, but -Inf is cheaper: the model then computes
//	   the logits of the allowed tokens only, which saves most of each step
//	b) every step stays valid, so the output is valid by construction;
//	   retrying may fail again and again when valid outputs are rare
//	c) -Inf makes the model surer of the allowed tokens, and so the values
//	   it writes are more often the right ones
//	d) trying again would need a new seed each time, and the output would
//	   no longer be reproducible from its seed
const Answer1 = "\x62"

// Question 2. Tokens do not line up with the language's symbols: the token
// `":` closes a key and reads the colon after it. What must the mask do
// with such a token?
//
//	a) allow it when its first byte is allowed; its other bytes are
//	   checked at the next step, once they have become the text so far
//	b) cut it into single bytes and let the model write those one at a
//	   time, so that every token is one symbol
//	c) walk all its bytes through the automaton, and allow it only if the
//	   state it ends in can still reach a complete value
//	d) never allow it: only a token that is exactly one symbol of the
//	   language can be checked
const Answer2 = "\x63"

// Question 3. Why is the end-of-text token allowed only in an accepting
// state?
//
//	a) ending anywhere else stops the output before its value is
//	   complete, as with {"n":12, which no parser accepts
//	b) the model never gives the end token much probability before the
//	   value is complete, so allowing it early would change nothing
//	c) its text would be added to the output, and the value would then
//	   end with characters the language does not have
//	d) an accepting state has no edges out of it, so the end token is the
//	   only token left that can follow it
const Answer3 = "\x61"

// Question 4. Where does the mask go in the sampler chain, relative to
// temperature, top-k and top-p?
//
//	a) last, after top-p: the filters choose the likely tokens, then the
//	   mask removes the invalid ones among them
//	b) before them: a filter run first could keep only tokens the mask
//	   then bans, and leave nothing to draw
//	c) anywhere at all: banning tokens and renormalising gives the same
//	   distribution before or after every other stage
//	d) nowhere when sampling: a mask is only for greedy decoding, since
//	   with sampling it would change the distribution
const Answer4 = "\x62"

// Question 5. Constrained to {"n":[0-9]+}, a model answers a question
// whose answer is 7 with {"n":12123}. What did the constraint guarantee?
//
//	a) that {"n":12123} is the value the model finds most likely of all
//	   the values the language allows
//	b) that the number is right, because the model could only choose
//	   among the answers the language allows
//	c) nothing at all: a mask only changes probabilities, and the model
//	   could just as well have written text that is not valid
//	d) that the output parses: its form is right; what it says is still up
//	   to the model, and may be wrong
const Answer5 = "\x64"
