package penalties

// Checkpoint quiz (the last task). Set each AnswerN constant to the letter of
// the choice you pick: "a", "b", "c" or "d".

// Question 1. Why does the repetition penalty multiply a negative logit by
// the penalty instead of dividing it, as it does a positive one?
//
//	a) to hit tokens with negative logits harder: such tokens are rare, and
//	   a rare token said twice stands out more
//	b) dividing a negative logit by a number above 1 flips its sign, which
//	   would make the token the likeliest of all
//	c) dividing a negative logit by a penalty above 1 moves it closer to 0,
//	   which makes the token likelier
//	d) a negative logit is a log-probability, and multiplying a
//	   log-probability by the penalty divides the probability by it
const Answer1 = ""

// Question 2. A token's logit is 1.0 and it occurs 3 times in the text so
// far. What is its logit after a presence penalty of 0.5 and a frequency
// penalty of 0.2?
//
//	a) −0.1: the presence penalty once (0.5), the frequency penalty once
//	   per occurrence (3 × 0.2)
//	b) 0.3: each penalty taken off once (0.5 + 0.2), however often the
//	   token occurs
//	c) −1.1: both penalties taken off once per occurrence
//	   (3 × 0.5 + 3 × 0.2)
//	d) 0.1: the presence penalty once (0.5), the frequency penalty once per
//	   repeat after the first (2 × 0.2)
const Answer2 = ""

// Question 3. With a no-repeat 3-gram ban, the text so far is the tokens
// "a b c a b". Which tokens are banned as the next token?
//
//	a) "a" and "b": each already occurs twice, and a third one would start
//	   a repeated 3-gram
//	b) only "c": the text ends in "a b", which was followed by "c" before,
//	   so "c" would repeat "a b c"
//	c) none yet: a 3-gram is banned once it has occurred twice, and "a b c"
//	   has occurred only once
//	d) "c" and "a": the 3-grams "a b c" and "b c a" have both occurred, and
//	   either one could come again next
const Answer3 = ""

// Question 4. Why are strong penalties risky when generating code?
//
//	a) code rarely falls into repetition loops, so penalties have nothing
//	   to fix there and only add noise
//	b) they push down Go's keywords, since keywords are the most frequent
//	   tokens in the model's training text
//	c) they keep the lowered logits for the rest of the session, so later
//	   requests start out already penalised
//	d) they see only token ids, so they also push down tokens that must
//	   repeat, such as err or a variable's name
const Answer4 = ""
