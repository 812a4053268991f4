package projection

// The checkpoint quiz of lesson 06. Set each constant to the letter of the
// answer you choose ("a", "b", "c" or "d"); go test -run Quiz checks them.

// Question 1. A model has a hidden state of d = 4096 numbers and a
// vocabulary of V = 50,000 tokens, with weights in 16-bit floats. What does
// its vocabulary projection cost at every decoding step?
//
//	a) about 50,000 multiply-adds, one per token, and about 100 kB of weights
//	b) about 4,096 multiply-adds: only h changes from step to step
//	c) about 200 million multiply-adds, reading about 400 MB of weights
//	d) about 200 million multiply-adds at the first step only: later steps reuse the logits
const Answer1 = ""

// Question 2. What does tying the output matrix to the input embedding
// save?
//
//	a) V·d parameters: one V × d matrix serves both as the embedding and as W_out
//	b) the projection's arithmetic: a tied model looks the logits up instead of computing them
//	c) d·d parameters in every layer
//	d) nothing in size; it only makes training faster
const Answer2 = ""

// Question 3. Why can the projection be the largest single cost of a step
// in a small model, but not in a large one?
//
//	a) small models have larger vocabularies than large ones
//	b) its V·d grows with d alone, while each layer costs a few d² and large models have many wide layers; a small model's few narrow layers can cost less than V·d
//	c) large models compute logits only for the tokens that are likely
//	d) the projection's cost grows with the position in the text, and small models read shorter texts
const Answer3 = ""

// Question 4. Top-p with p = 0.9 keeps a small fraction of the vocabulary.
// Why does that barely change the distribution it samples from?
//
//	a) the dropped probability is given back to the kept tokens, which makes up for it exactly
//	b) top-p changes the logits, not the probabilities
//	c) the projection only computed logits for the likely tokens in the first place
//	d) most of the V probabilities are negligible: the few tokens kept already hold nearly all the mass
const Answer4 = ""

// Question 5. The same model body moves from a 32,000-token to a
// 128,000-token vocabulary. What does it gain and what does it pay?
//
//	a) it gains nothing, a larger vocabulary only adds rare words; it pays a larger projection
//	b) the same text takes fewer tokens (fewer steps, more text in the context); each step pays a projection and softmax four times as large
//	c) each token covers more text, so the projection gets cheaper; it pays with more steps
//	d) the embedding table gets smaller; it pays with longer sequences
const Answer5 = ""
