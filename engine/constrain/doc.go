// Package constrain makes a language model write only text of a given
// language: a JSON value that follows a JSON Schema, a match of a regular
// expression, or a sentence of a small context-free grammar.
//
// It is the sampler's constraint stage. Before each token is drawn, every
// token whose text would lead the output out of the language gets
// probability zero (a logit of -Inf); the other stages then renormalise
// over the tokens left. Tokens do not line up with the language's symbols
// — one token may close a string and open the next key, `"},{"` — so the
// work is done byte by byte: each language compiles to a Grammar over
// bytes, and a Grammar bound to a model's Vocabulary is a Constraint.
//
// # The automaton
//
// A Grammar is a set of rules, each a list of alternatives, each a sequence
// of byte classes and references to rules. The automaton reading it is a
// pushdown automaton whose state is a set of stacks (a rule's alternatives
// may all still be possible); the top of every stack is the byte class
// that may come next. Regular expressions and schemas without $ref
// recursion keep the stacks bounded, so their states are finitely many;
// recursive grammars (JSON itself, nested SQL) make new states as they
// nest.
//
// States are built lazily and remembered, with their transitions on each
// byte: a state reached again costs a table lookup, which makes the
// automaton a lazily built DFA for regular languages. The tokens allowed
// in a state are found by walking a trie of the vocabulary's texts,
// abandoning a whole subtree as soon as its prefix leaves the language.
// The walk is done not per state but per head of a stack — its top frames,
// down to the first that cannot be left without reading a byte of its own
// — and kept: for most tokens the head alone decides, so the states of one
// string at any depth of nesting, or after any number of characters, share
// one walk, and only the few tokens that may run past the head are checked
// in the state itself. The resulting bit mask over the vocabulary is
// remembered per state too. Most steps of a generation land in a state
// already seen (the inside of a string, after a comma), and then masking
// costs only the copy of the mask onto the logits.
//
// # Bounds
//
// An ambiguous grammar is read along every way at once, and the ways can
// multiply with each byte. Every call of a Constraint is bounded, in the
// stacks one state may hold (MaxStacks) and in the parse steps it may
// take (MaxWork); a call that would pass either returns an
// *AmbiguityError naming the byte of the text and the rule, instead of
// running on or dropping stacks. A mask that is returned is therefore
// always exact, and one that cannot be decided is never half-decided.
//
// # Ending
//
// End-of-text tokens are allowed only in a state where the text so far is
// a complete sentence. A state where the text is complete and no byte may
// follow is Done: the generation should end there. Given the number of
// tokens still allowed (the budget), Allowed keeps only tokens after which
// the language can still be completed in the tokens left, counting one
// token per byte: an unbounded string or array is closed in time, and the
// text that ends at the budget is a complete value, whenever the
// vocabulary has a token for each byte (both the course's tokenizer and
// SmolLM2's have).
package constrain
