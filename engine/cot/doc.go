// Package cot is the chain-of-thought lesson's task (notebook 13): adding
// two numbers of 1 to MaxDigits digits, answered in one of two formats by
// two small models that the course trains itself and embeds here.
//
//   - Direct: the model writes the sum right after the "=": "357+268=625".
//   - Steps: the model first works through the columns from the right, as
//     on paper, each step adding two digits and the carry, then writes the
//     sum: "357+268=7+8+0=15 5+6+1=12 3+2+1=06 so 625".
//
// Both models have the same shape and were trained for the same number of
// steps on the same number of tokens, by engine/train, on examples that
// Examples generates (go run ./engine/cmd/cot; the runs are in Presets).
// The package also holds what measures them: problems of a chosen size
// (Problems), reading the answer of a completion (ParseAnswer), accuracy
// and cost in generated tokens (Evaluate, BySize), and self-consistency,
// the majority answer of N sampled completions (SampleAll and VoteScore,
// built on decoding.GenerateN and decoding.Majority).
//
// The files: task.go (problems and formats), tokenizer.go (one token per
// character), data.go (training examples), presets.go (the training runs),
// models.go (the embedded models), eval.go (accuracy, cost and votes).
package cot
