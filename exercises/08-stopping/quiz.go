package stopping

// Checkpoint quiz (task 4). Set each answer to the letter of the choice you
// think is right: "a", "b", "c" or "d".

// Question 1. Of the ways a generation can end, which one is decided by the
// model itself rather than by a limit or a rule the caller set?
//
//	a) the model produces its end-of-text token
//	b) the maximum number of new tokens is reached
//	c) the text contains one of the stop strings
//	d) the request's deadline passes
const Answer1 = ""

// Question 2. A reply ends with the finish reason "length" instead of "eos".
// What does that tell the caller?
//
//	a) nothing new: every finish reason means the reply is complete
//	b) the model judged the reply complete and ended it a little early
//	c) the limit cut the reply, maybe mid-sentence: it is likely unfinished
//	d) a stop string was found and removed from the end of the reply
const Answer2 = ""

// Question 3. The stop string is "\n\n" and the tokens arrive as "}\n", "\n",
// "func". What may a streaming server print after each token?
//
//	a) "}\n", then "\n", then nothing: each piece is shown as it arrives
//	b) "}", then nothing, and the generation ends there
//	c) "}", then "\n", and the generation ends there
//	d) "}\n\n", and only the piece "func" is dropped
const Answer3 = ""

// Question 4. Why can a byte-level tokenizer force a server to hold back
// text even when there are no stop strings?
//
//	a) its tokens are always longer than one character
//	b) it may merge the bytes of the text again after generation
//	c) its end-of-text token may arrive in the middle of a word
//	d) one character can span two tokens, and half of it is not valid UTF-8
const Answer4 = ""

// Question 5. The output must be a JSON object, and generation stopped at the
// right place, just after the closing brace. Why is that not enough?
//
//	a) stop strings cannot contain braces, so the brace must be added back
//	b) text that ends in the right place can still be invalid: parse it
//	c) the model always writes valid JSON; the only risk is stopping late
//	d) JSON output needs IncludeStop, or every reply is rejected
const Answer5 = ""
