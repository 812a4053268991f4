package greedy

// The checkpoint quiz of notebook 03. Set each AnswerN to the letter of the
// choice you think is right ("a", "b", "c" or "d"); `go test -run Quiz`
// tells you which are right.

// Question 1. What does greedy decoding do at each step, and why does the
// same prompt always give the same text?
//
//	a) it samples with a fixed seed, so the random draws repeat
//	b) it picks the token that starts the most likely whole sentence,
//	   which is unique
//	c) it takes the argmax of the step's logits; nothing is random, so the
//	   same input gives the same token, and so the same input for the next
//	   step
//	d) it keeps several candidate sentences and returns the best at the end
const Answer1 = ""

// Question 2. For which job is greedy decoding's behaviour a strength
// rather than a weakness?
//
//	a) pulling the date out of an invoice, where one right, repeatable
//	   answer is wanted
//	b) brainstorming ten different names for a product
//	c) writing a story that should surprise its reader
//	d) drafting several varied replies for a person to choose from
const Answer2 = ""

// Question 3. Why do greedy continuations tend to fall into loops?
//
//	a) the model's context is too short to see what it wrote earlier
//	b) the tokenizer merges repeated text into a single token
//	c) greedy decoding goes back to the prompt every few tokens
//	d) once a phrase is in the text it makes itself more likely to come
//	   next; the argmax takes it again, and every repeat makes the next one
//	   likelier still
const Answer3 = ""

// Question 4. The repeated 4-gram rate of a text is the share of its
// 4-grams that already occurred earlier in it. What did the notebook see
// as greedy continuations of the course's model get longer?
//
//	a) the rate falls toward 0 as the text moves away from the prompt
//	b) the rate climbs, toward 1 for a text stuck in a loop, far above the
//	   rate of Go source written by people
//	c) the rate stays about the same as for Go source written by people
//	d) the rate is always 0, since greedy decoding never picks a token twice
const Answer4 = ""

// Question 5. One first word has probability 0.5 and its best next word
// 0.3; another first word has probability 0.4 and its best next word 0.9.
// What does greedy decoding write, and is it the most likely two-word
// sequence?
//
//	a) the 0.5 word and its best follower (0.5 × 0.3 = 0.15), but the
//	   other pair is more likely (0.4 × 0.9 = 0.36); finding it means
//	   comparing whole sequences, as beam search does
//	b) the 0.4 word, because greedy decoding looks one step ahead
//	c) the 0.5 word, and yes: the best first word always starts the most
//	   likely sequence
//	d) the 0.5 word and its best follower; whether another pair is more
//	   likely can only be found out by sampling many times
const Answer5 = ""
