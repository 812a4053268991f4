package beam

// The checkpoint quiz of notebook 09 (Task 5). Set each constant to the
// letter of the choice you pick: "a", "b", "c" or "d".

// Question 1. One step of beam search with width B, on a vocabulary of V
// tokens: how often is the model run, and what is kept?
//
//	a) once, whatever B is; the B likeliest tokens of that one run are kept
//	b) B times, once per live beam; of the up to B × V candidates, ranked
//	   together by total log-probability, the B best are kept
//	c) B × V times, once per candidate sequence; the best B are kept
//	d) V times, once per token; each beam keeps its own best token
const Answer1 = ""

// Question 2. After "The", a model gives " nice" 0.5 and " dog" 0.4. After
// "The nice" the likeliest word has probability 0.4; after "The dog",
// " has" has 0.9. Looking two words ahead, what do greedy decoding and a
// beam of width 2 return?
//
//	a) both "The nice …": a beam always starts with the likeliest first word
//	b) greedy returns "The dog has", because 0.9 is the largest probability
//	   in the tree
//	c) greedy returns "The nice woman" (0.5 × 0.4 = 0.20); width 2 keeps
//	   " dog" as its second beam and finds "The dog has" (0.4 × 0.9 = 0.36)
//	d) width 2 returns both sequences, one per beam, and lets the caller choose
const Answer2 = ""

// Question 3. Why do raw beam scores (total log-probabilities) favour short
// outputs, and what does the length penalty change?
//
//	a) every token adds a negative log-probability, so a hypothesis that ends
//	   early keeps a higher total; dividing by ((5 + length) / 6)^α with α > 0
//	   shrinks long hypotheses' totals more, so they can compete
//	b) the end-of-text token is always among the likeliest tokens; the length
//	   penalty lowers its probability
//	c) long sequences make the log-probability overflow; the length penalty
//	   rescales it into range
//	d) the length penalty adds α to the log-probability of each token, so
//	   longer sequences collect a bigger bonus
const Answer3 = ""

// Question 4. Why is beam search a good fit for translation and a poor one
// for chat or story writing?
//
//	a) beam search cannot stop at an end-of-text token, which chat needs
//	b) beam search needs a second, smaller model, which chat systems lack
//	c) beam search costs too much for translation but little for chat
//	d) a translation has roughly one right answer, so the likeliest sequence
//	   is a good target; in open-ended text the likeliest sequence is bland
//	   and the beams end up near-copies of each other
const Answer4 = ""
