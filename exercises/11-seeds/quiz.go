package seeds

// Checkpoint quiz (task 4). Set each answer to the letter of the choice you
// think is right: "a", "b", "c" or "d".

// Question 1. You send the same prompt twice, at temperature 1, and get two
// different answers. What changed between the two runs?
//
//	a) nothing in the model: each token is a random draw from the same
//	   probabilities, and the draws differed
//	b) the model changed its mind: it weighed the question again and found
//	   another answer likelier this time
//	c) at temperature 1 the model adds a little random noise to its logits,
//	   so the runs got other probabilities
//	d) the model remembered its first answer within the session and was
//	   steered away from giving it twice
const Answer1 = ""

// Question 2. Two samples of one prompt share their first two tokens and
// differ at the third. Why are the rest of the two texts usually completely
// different, not one word apart?
//
//	a) the random generator is reseeded after any token that differs, so
//	   every later draw changes
//	b) the model bases each step mostly on the last token, and that token
//	   is now a different one
//	c) each later token is drawn given all the text before it, and that
//	   text is now different
//	d) the rounding errors of one different token build up in the logits
//	   from each step to the next
const Answer2 = ""

// Question 3. What must stay the same to reproduce a sampled output exactly?
//
//	a) the seed alone: it fixes every random draw, so everything else may
//	   change freely
//	b) the seed, the prompt, the model, the settings, and the software and
//	   hardware too
//	c) the seed, prompt and model; sampling settings such as top-p act
//	   after the draw
//	d) the prompt, the model and the settings; the seed only matters above
//	   temperature 1
const Answer3 = ""

// Question 4. Temperature 0 is deterministic, but only
// "on the same software and hardware". Why the restriction?
//
//	a) floating-point units add a tiny random noise to every sum, and that
//	   noise differs from chip to chip
//	b) the engine may turn temperature 0 into a tiny positive temperature,
//	   whose draws vary by machine
//	c) greedy decoding breaks ties between equal logits with a coin seeded
//	   from the machine's clock
//	d) other software or chips may add in another order and so round
//	   differently, flipping a near-tie
const Answer4 = ""

// Question 5. Why is judging a model by one sample of each prompt
// unreliable, and what would you do instead?
//
//	a) one draw may be lucky or unlucky: score many samples of each prompt,
//	   and report their mean and their spread
//	b) one draw hides what the model can do: draw many samples of each
//	   prompt and report the best one's score
//	c) a sample's score depends on its seed, so evaluate every prompt with
//	   one fixed seed, such as seed 0
//	d) the first sample after loading may be the least reliable, as the
//	   generator warms up; score the second one
const Answer5 = ""
