package projection

// The checkpoint quiz of lesson 06. Set each constant to the letter of the
// answer you choose ("a", "b", "c" or "d"); go test -run Quiz checks them.

// Question 1. A model has a hidden state of d = 4096 numbers and a
// vocabulary of V = 50,000 tokens, with weights in 16-bit floats. What does
// its vocabulary projection cost at every decoding step?
//
//	a) about 200 million multiply-adds (d × V), and about 200 MB of weights
//	   read, a byte per weight
//	b) about 16.8 million multiply-adds (d × d, like the other layers), and
//	   about 34 MB of weights read
//	c) about 200 million multiply-adds at the first step only; later steps
//	   update the previous logits
//	d) about 200 million multiply-adds (d × V, for all V tokens), and about
//	   400 MB of weights read
const Answer1 = ""

// Question 2. What does tying the output matrix to the input embedding save?
//
//	a) V·d parameters: one V × d matrix then serves both as the input
//	   embedding table and as W_out
//	b) V·d multiply-adds per step: the logits come from the matrix that
//	   embedded the input token
//	c) d·d parameters in each layer, since every layer can then reuse the
//	   embedding table's weights
//	d) nothing in size; it only speeds up training, as both ends of the
//	   model learn one table
const Answer2 = ""

// Question 3. Why can the projection be the largest single cost of a step in
// a small model, but not in a large one?
//
//	a) small models tend to have larger vocabularies than large ones, so
//	   their V·d is larger in absolute terms
//	b) large models compute logits only for the few tokens likely to be
//	   sampled, and skip the rest of the vocabulary
//	c) V·d grows only with d while each layer costs a few d²: a large model
//	   stacks many wide layers, a small one a few narrow ones
//	d) the projection's cost grows with the position in the text, and small
//	   models are usually run on short texts
const Answer3 = ""

// Question 4. Top-p with p = 0.9 keeps a small fraction of the vocabulary.
// Why does that barely change the distribution it samples from?
//
//	a) renormalising hands the dropped probability back to the kept tokens,
//	   which makes up for the cut exactly
//	b) most of the V probabilities are negligible, so the few tokens kept
//	   already hold nearly all of the mass
//	c) the dropped tokens all have negative logits, and a token with a
//	   negative logit is never drawn anyway
//	d) the projection computed logits only for the likely tokens in the
//	   first place, so nothing real is dropped
const Answer4 = ""

// Question 5. The same model body moves from a 32,000-token to a
// 128,000-token vocabulary. What does it gain and what does it pay?
//
//	a) the same text takes fewer tokens, so fewer steps and more text in
//	   the context; each step's projection and softmax grow fourfold
//	b) the same text takes more tokens, since each token is shorter; each
//	   step's projection stays the same, as d has not changed
//	c) it gains a model that knows more words and so answers more
//	   accurately; it pays only with a larger file of weights to store on
//	   disk
//	d) each token covers more text, so the projection gets cheaper per byte
//	   written; it pays with a larger embedding table only
const Answer5 = ""
