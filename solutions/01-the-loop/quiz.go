package loop

// The checkpoint quiz of notebook 01. Set each AnswerN to the letter of the
// choice you think is right ("a", "b", "c" or "d"); `go test -run Quiz`
// tells you which are right.

// Question 1. Why is generating text a loop?
//
//	a) the model is too large to hold a whole answer in memory at once
//	b) one run of the model scores only the next token; to get the token
//	   after it, the chosen token is appended and the model runs again
//	c) the loop writes several complete answers and keeps the best one
//	d) the tokenizer can only encode one token per call
const Answer1 = "\x62"

// Question 2. Why can't the model go back and change a token it has
// already written?
//
//	a) it could, but revising is switched off to save memory
//	b) the tokenizer cannot merge a new token with an earlier one
//	c) the model's weights change after every token, so the old ones no
//	   longer fit
//	d) each step only appends: the chosen token becomes part of the input
//	   of every later step, and no step replaces an earlier token
const Answer2 = "\x64"

// Question 3. An answer is 500 tokens long. How many model steps (questions
// "what comes next?") did the loop make to write it?
//
//	a) 500: one per token, each seeing the prompt and everything written
//	   before it
//	b) 1: the model produces the answer in one pass
//	c) 125,250 (500 · 501 / 2): one for every pair of tokens
//	d) as many as the answer has words, whatever its number of tokens
const Answer3 = "\x61"

// Question 4. Why can a chat interface show the answer while it is still
// being written (streaming)?
//
//	a) the model writes the whole answer first, and the interface replays
//	   it slowly
//	b) the model decides the answer's length first, then fills it in
//	c) each token is final as soon as the loop chooses it, so it can be
//	   shown before the next step runs
//	d) streaming only works with greedy decoding
const Answer4 = "\x63"

// Question 5. Two runs of the same prompt agree on their first two tokens
// but pick different third tokens. What about the tokens after that?
//
//	a) they agree again from the fourth token on: the prompt is the same
//	b) they may differ all the way: every later step has the different
//	   third token in its input, so its scores change
//	c) only the fourth token may differ; the model is back on track by the
//	   fifth
//	d) they can only differ if the two runs use different model weights
const Answer5 = "\x62"
