package beam

// The checkpoint quiz of notebook 09 (Task 5). Set each constant to the
// letter of the choice you pick: "a", "b", "c" or "d".

// Question 1. One step of beam search with width B, on a vocabulary of V
// tokens: how often is the model run, and what is kept?
//
//	a) once, whatever B is; the B × V extensions it scores are ranked
//	   together, and the B best kept
//	b) B times, once per live beam; all B × V extensions are ranked
//	   together, and the B best kept
//	c) once, whatever B is; each beam then keeps its own likeliest next
//	   token from that one run
//	d) B times, once per live beam; each beam then keeps its own likeliest
//	   next token, as greedy would
const Answer1 = "\x62"

// Question 2. After "The", a model gives " nice" 0.5 and " dog" 0.4. After
// "The nice" the likeliest word has probability 0.4; after "The dog", " has"
// has 0.9. Looking two words ahead, what do greedy decoding and a beam of
// width 2 return?
//
//	a) both "The nice woman" (0.20): a beam search keeps the likeliest
//	   first word in front, whatever words come after it
//	b) greedy returns "The dog has", since 0.9 is the largest single
//	   probability anywhere in the tree
//	c) greedy returns "The nice woman" (0.5 × 0.4 = 0.20); width 2 also
//	   keeps " dog" and finds "The dog has" (0.36)
//	d) width 2 returns both "The nice woman" and "The dog has", one per
//	   beam, for the caller to choose from
const Answer2 = "\x63"

// Question 3. Why do raw beam scores (total log-probabilities) favour short
// outputs, and what does the length penalty change?
//
//	a) each token adds a negative log-probability, so an early end keeps a
//	   higher total; dividing by ((5 + length) / 6)^α with α > 0 lifts long
//	   totals more
//	b) the end-of-text token is among the likeliest tokens at every step;
//	   the length penalty lowers its probability by α, so that the beams go
//	   on longer
//	c) the total log-probability of a long hypothesis underflows to −∞ in
//	   float32; the length penalty rescales each total by its length to
//	   keep it in float range
//	d) the model is surer of early tokens than of later ones, so short
//	   outputs score higher per token; the length penalty weights the later
//	   tokens up by α
const Answer3 = "\x61"

// Question 4. Why is beam search a good fit for translation and a poor one
// for chat or story writing?
//
//	a) beam search must know the output's length in advance, which the
//	   source sentence gives a translation but a chat reply or story lacks
//	b) beam search needs a small draft model next to the large one to
//	   propose tokens, which translation systems have and chat systems lack
//	c) beam search favours rare words, which a translation needs for names
//	   and technical terms but which make a chat reply sound stilted
//	d) a translation has about one right answer, so the likeliest sequence
//	   is a good target; in open-ended text it is bland, and the beams end
//	   up near-copies
const Answer4 = "\x64"
