// Package decoding turns a model's logits into text: the autoregressive
// loop and every way the course teaches of choosing the next token.
//
// Two entry points run the loop: Generate (and Chat) over a Model of
// package engine, with its tokenizer and KV cache, and Decode over any
// LM, a language model that scores next tokens (a Model seen as an LM,
// an engine.NoCacheLM, a hand-built table), on token ids. Both take Options and
// stream the same Steps (an iter.Seq2[Step, error]), which end for the
// same reasons (FinishReason); the last step's Stats counts them.
//
// Options.Decoder chooses how the tokens are chosen. Nil draws each with
// the Sampler, from the sampling settings of Options. The other decoders
// are values of the Decoder interface:
//
//   - Pick: each token chosen by a function of the logits (Argmax, or a
//     sampler written outside the engine);
//   - Beam: beam search; its Stats.Report is a *BeamResult, the explored
//     tree;
//   - Speculation: speculative decoding, with a Drafter (a draft model,
//     DraftLM, or prompt lookup, PromptLookup) guessing ahead; its
//     Stats.Report is a *SpeculativeStats;
//   - NoCache: the default decoder without a KV cache;
//   - Shared: the default decoder with a Sequence of shared forward
//     passes (engine/schedule's batching) running the model.
//
// The files read like the lessons:
//
//   - softmax.go, logprobs.go: from logits to probabilities.
//   - sample.go and one file per sampling stage: bias.go, penalty.go,
//     ngram.go, temperature.go, topk.go, topp.go, minp.go; rng.go is the
//     seeded random number generator; constraint.go: a language the text
//     must stay in (a JSON Schema, a regular expression, a grammar;
//     compiled by package engine/constrain) as the stage that masks every
//     token leading out of it (Options.Constraint).
//   - generate.go, stop.go, stream.go: the autoregressive loop, its finish
//     reasons and stop conditions, and streaming of whole characters;
//     chat.go: a conversation, in the model's chat format; lm.go: the LM
//     interface.
//   - pick.go, beam.go, speculative.go, drafter.go, nocache.go, shared.go:
//     the decoders.
//   - vote.go: spending more compute at test time — N samples and a
//     majority vote over their answers (self-consistency), or the best of N.
//
// A minimal program:
//
//	m, tok, err := models.Default() // package engine/models
//	if err != nil { ... }
//	opts := decoding.Options{MaxNewTokens: 50, Temperature: 0.8, TopP: 0.9, Seed: 1}
//	for step, err := range decoding.Generate(ctx, m, tok, "func main() {", opts) {
//		if err != nil { ... }
//		fmt.Print(step.Text)
//	}
//
// The same model searched with four beams, on token ids:
//
//	opts := decoding.Options{MaxNewTokens: 20, IsEnd: tok.IsEnd, Decoder: decoding.Beam{Width: 4}}
//	for step, err := range decoding.Decode(ctx, engine.NewModelLM(m, 8), ids, opts) { ... }
package decoding
