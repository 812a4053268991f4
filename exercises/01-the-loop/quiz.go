package loop

// The checkpoint quiz of notebook 01. Set each AnswerN to the letter of the
// choice you think is right ("a", "b", "c" or "d"); `go test -run Quiz`
// tells you which are right.

// Question 1. Why is generating text a loop?
//
//	a) one run of the model writes a whole sentence; the loop keeps asking
//	   for sentences until an end-of-text token comes
//	b) the model drafts the full answer in its first run, and the later
//	   runs go over that draft token by token to correct it
//	c) one run of the model scores only the next token; the token chosen is
//	   appended to the input and the model runs again
//	d) the model reads the prompt one token per run, and once the whole
//	   prompt is read, it writes the answer in a single run
const Answer1 = ""

// Question 2. Why can't the model go back and change a token it has already
// written?
//
//	a) each step only appends: the chosen token joins the input of every
//	   later step, and no step outputs anything but the next token
//	b) it does: every step rescores the earlier tokens as well, and the
//	   interface quietly swaps in any token that now scores better
//	c) the earlier tokens are dropped from its input once they have been
//	   shown, so the model no longer knows what it wrote before
//	d) its weights are updated after every token it writes, so it can no
//	   longer work out what an earlier token should have been
const Answer2 = ""

// Question 3. An answer is 500 tokens long. How many model steps
// (questions "what comes next?") did the loop make to write it?
//
//	a) 1: the model writes the whole answer in one pass, and the interface
//	   then cuts the text into 500 tokens
//	b) about 375: one per word, since 500 tokens of English make about 375
//	   words and the model predicts words
//	c) 125,250 (500 · 501 / 2): step k runs the model once for each of the
//	   k tokens that came before it
//	d) 500: one per token, each step seeing the prompt and every token the
//	   loop has written before it
const Answer3 = ""

// Question 4. Why can a chat interface show the answer while it is still
// being written (streaming)?
//
//	a) the model writes the whole answer first, and the interface plays it
//	   back a few tokens at a time
//	b) each token is final as soon as the loop picks it, so it can be sent
//	   before the next step even starts
//	c) the interface shows a rough draft of each sentence and swaps in the
//	   model's revision when it is ready
//	d) the model decodes greedily while it streams, since a sampled token
//	   could still change at a later step
const Answer4 = ""

// Question 5. Two runs of the same prompt agree on their first two tokens
// but pick different third tokens. What about the tokens after that?
//
//	a) they agree again from the fourth token on: the prompt, which decides
//	   the answer, is the same in both runs
//	b) every later step gives the same scores in both runs, so only the
//	   sampler's random draws can make them differ
//	c) they may differ all the way: every later step has the other third
//	   token in its input, so its scores change
//	d) only the fourth token may differ, as the model makes up for the one
//	   different token by the fifth
const Answer5 = ""
