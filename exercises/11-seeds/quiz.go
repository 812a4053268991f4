package seeds

// Checkpoint quiz (task 4). Set each answer to the letter of the choice you
// think is right: "a", "b", "c" or "d".

// Question 1. You send the same prompt twice, at temperature 1, and get two
// different answers. What changed between the two runs?
//
//	a) the model's weights were updated after the first answer
//	b) nothing in the model: each token is a random draw, and the draws differed
//	c) the model remembered its first answer and avoided repeating it
//	d) the tokenizer split the prompt into different tokens the second time
const Answer1 = ""

// Question 2. Two samples differ in their third token only. Why are the
// rest of the two texts usually completely different, not one word apart?
//
//	a) the generator is reseeded whenever a different token is drawn
//	b) the model only looks at the last token, which is now different
//	c) each later token is drawn given all the text before it, which differs
//	d) rounding errors from the different token build up in the logits
const Answer2 = ""

// Question 3. What must stay the same to reproduce a sampled output exactly?
//
//	a) the seed alone: it fixes every draw
//	b) the temperature alone: the seed only matters above 1
//	c) the prompt and the model: the settings only change the style
//	d) the seed, prompt, model and settings, and the software and hardware
const Answer3 = ""

// Question 4. Temperature 0 is deterministic, but only "on the same
// software and hardware". Why the restriction?
//
//	a) other software or chips round differently, which can flip a near-tie
//	b) greedy decoding still draws coins, seeded from the clock
//	c) temperature 0 is quietly replaced by a small positive temperature
//	d) floating-point units add a little true random noise to every sum
const Answer4 = ""

// Question 5. Why is judging a model by one sample of each prompt
// unreliable, and what would you do instead?
//
//	a) the first sample is always the worst; skip it and score the second
//	b) one sample is biased by its seed; always evaluate with seed 0
//	c) one draw may be lucky: score many samples, report mean and spread
//	d) sampling is never used in practice, so only greedy output matters
const Answer5 = ""
