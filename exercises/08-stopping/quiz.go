package stopping

// Checkpoint quiz (task 4). Set each answer to the letter of the choice you
// think is right: "a", "b", "c" or "d".

// Question 1. Of the ways a generation can end, which one is the model's own
// choice rather than a limit or a rule applied from outside?
//
//	a) the text comes to a stop string, such as the blank line that follows
//	   a function
//	b) the text fills the model's context window, the longest input it can
//	   read
//	c) the request's deadline passes, or the reader cancels it,
//	   mid-generation
//	d) the model picks its end-of-text token, as it learned to at the end
//	   of a text
const Answer1 = ""

// Question 2. A reply ends with the finish reason "length" instead of "eos".
// What does that tell the caller?
//
//	a) the model judged the reply complete and ended it early, to stay
//	   under the limit
//	b) the limit cut the reply, maybe in mid-sentence, so the reply is
//	   probably unfinished
//	c) nothing new: every finish reason means the reply is most likely
//	   complete; only the cause differs
//	d) the model wrote one of the caller's stop strings, which was removed
//	   from the end
const Answer2 = ""

// Question 3. The stop string is "\n\n" and the tokens arrive as "}\n",
// "\n", "func". What may a streaming server print after each token?
//
//	a) "}\n", then "\n", then nothing: each piece is shown the moment it
//	   arrives
//	b) "}\n", then nothing: one "\n" is not the stop string, so it need not
//	   wait
//	c) "}", then nothing: the "\n" is held back, and the stop string ends
//	   the generation
//	d) "}", then "\n", and the generation ends before "func" is shown
const Answer3 = ""

// Question 4. Why can a byte-level tokenizer force a server to hold back
// text even when there are no stop strings?
//
//	a) one character may be split over two tokens, and half a character is
//	   not valid UTF-8
//	b) the text is tokenized again after generation, and the tokens may
//	   merge differently
//	c) its pieces are raw bytes, which a terminal can only show in blocks
//	   of four
//	d) its end-of-text token may come in the middle of a word, which must
//	   then be taken back
const Answer4 = ""

// Question 5. The output must be a JSON object, and generation stopped at
// the right place, just after the closing brace. Why is that not enough?
//
//	a) the closing brace must be added back, since the stop string is
//	   always cut from the reply
//	b) the model writes valid JSON whenever asked for it; the only risk is
//	   stopping too late
//	c) text that ends in the right place can still be invalid inside it:
//	   parse it to make sure
//	d) a reply ended by a rule rather than by end-of-text must be generated
//	   again to be safe
const Answer5 = ""
