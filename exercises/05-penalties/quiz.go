package penalties

// Checkpoint quiz (the last task). Set each AnswerN constant to the letter of
// the choice you pick: "a", "b", "c" or "d".

// Question 1. Why does the repetition penalty multiply a negative logit by the
// penalty instead of dividing it, as it does a positive one?
//
//	a) so that every penalised logit ends up positive
//	b) dividing a negative logit by a penalty above 1 would bring it closer to 0 and make the token more likely; multiplying pushes it further down
//	c) softmax ignores negative logits, so only their sign matters
//	d) to penalise rare tokens more than common ones
const Answer1 = ""

// Question 2. A token's logit is 1.0 and it occurs 3 times in the text so far.
// What is its logit after a presence penalty of 0.5 and a frequency penalty of
// 0.2?
//
//	a) 0.5
//	b) 0.3
//	c) -0.1
//	d) -1.1
const Answer2 = ""

// Question 3. With a no-repeat 3-gram ban, the text so far is the tokens
// "a b c a b". Which tokens are banned as the next token?
//
//	a) only "c": the text ends with "a b", which was followed by "c" before
//	b) "a" and "b", because they already occur twice
//	c) every token that occurs in the text
//	d) none: no 3-gram has occurred twice yet
const Answer3 = ""

// Question 4. Why are strong penalties risky when generating code?
//
//	a) they make every forward pass of the model slower
//	b) code never falls into repetition loops, so there is nothing for them to fix
//	c) they change the model's weights for the rest of the session
//	d) they see only token ids, so they also push down tokens that must repeat, such as err in "if err != nil" after "n, err :=", or a variable's name
const Answer4 = ""
