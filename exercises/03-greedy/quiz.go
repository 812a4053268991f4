package greedy

// The checkpoint quiz of notebook 03. Set each AnswerN to the letter of the
// choice you think is right ("a", "b", "c" or "d"); `go test -run Quiz`
// tells you which are right.

// Question 1. What does greedy decoding do at each step, and why does the
// same prompt always give the same text?
//
//	a) it samples with a fixed seed that the engine chooses, so the random
//	   draws come out the same on every run
//	b) it takes the argmax of the step's logits; nothing is random, so the
//	   same input gives the same token and the same next input
//	c) it picks the token that starts the likeliest whole sentence, and for
//	   one prompt that sentence is always the same
//	d) it keeps several candidate sentences and returns the likeliest at
//	   the end, the same one for the same prompt
const Answer1 = ""

// Question 2. For which job is greedy decoding's behaviour a strength rather
// than a weakness?
//
//	a) brainstorming names for a new product, where every request should
//	   bring a fresh set of ideas
//	b) writing a 2,000-word story, where the text must keep moving and
//	   never repeat what it has already said
//	c) drafting several replies to one email, so that a person can pick the
//	   one that fits best
//	d) pulling the due date out of an invoice, where the same document must
//	   always give the same date
const Answer2 = ""

// Question 3. Why do greedy continuations tend to fall into loops?
//
//	a) a phrase already in the text makes itself likelier to come next; the
//	   argmax takes it, and each repeat feeds the next
//	b) the argmax breaks ties toward the lowest token id, and the same few
//	   ids keep winning those ties over and over
//	c) the model's context window is too short to hold what it wrote
//	   earlier, so it writes the same lines again, unaware of them
//	d) greedy decoding goes back to the prompt every few dozen tokens, so
//	   it keeps writing the same opening lines
const Answer3 = ""

// Question 4. The repeated 4-gram rate of a text is the share of its 4-grams
// that already occurred earlier in it. What did the notebook see as greedy
// continuations of the course's model got longer?
//
//	a) it climbed, but stayed under the Go source's rate: people repeat
//	   lines such as `if err != nil {` more than the model
//	b) it fell toward 0 as the text moved away from the prompt and the
//	   model had less of the prompt to copy from
//	c) it climbed until most 4-grams were repeats, far above the rate of
//	   the Go source written by people
//	d) it stayed close to the Go source's rate, since Go code repeats
//	   itself anyway and the model learned that
const Answer4 = ""

// Question 5. One first word has probability 0.5 and its best next word 0.3;
// another first word has probability 0.4 and its best next word 0.9. What
// does greedy decoding write, and is it the most likely two-word sequence?
//
//	a) the 0.5 word and its follower, and that is the likeliest pair: a
//	   likelier first word always starts the likeliest whole sequence
//	b) the 0.4 word and its 0.9 follower: greedy decoding looks one word
//	   ahead and sees that 0.4 × 0.9 beats 0.5 × 0.3
//	c) the 0.5 word and its best follower; whether another pair is likelier
//	   can only be found out by sampling many times
//	d) the 0.5 word and its follower (0.15 in all); the other pair is
//	   likelier (0.36), which only comparing whole sequences shows
const Answer5 = ""
