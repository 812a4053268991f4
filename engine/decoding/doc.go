// Package decoding turns a model's logits into text: the autoregressive
// loop and every way the course teaches of choosing the next token. It
// runs a model of package engine (Generate, Chat) or any language model
// that scores next tokens (the LM interface: Decode, BeamSearch,
// Speculative).
//
// The files read like the lessons:
//
//   - softmax.go, logprobs.go: from logits to probabilities.
//   - sample.go and one file per sampling stage: bias.go, penalty.go,
//     ngram.go, temperature.go, topk.go, topp.go, minp.go; rng.go is the
//     seeded random number generator; constraint.go: a language the text
//     must stay in (a JSON Schema, a regular expression, a grammar;
//     compiled by package engine/constrain) as the stage that masks every
//     token leading out of it.
//   - generate.go, stop.go, stream.go: the autoregressive loop, its finish
//     reasons and stop conditions, and streaming of whole characters;
//     chat.go: a conversation, in the model's chat format.
//   - lm.go, nocache.go, beam.go, speculative.go, drafter.go: other ways to
//     decode — over any LM (Decode), without a cache, beam search,
//     speculative decoding with a draft model or prompt lookup. Every
//     decoder streams the same Steps (an iter.Seq2[Step, error]) and ends
//     for the same reasons; Options.Decoder runs any of them in Generate.
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
package decoding
