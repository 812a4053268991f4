// Command cot trains the two small models of the chain-of-thought lesson
// (notebook 13) from scratch, with the course's own trainer: one that
// answers an addition directly ("357+268=625") and one that first writes
// the sum column by column with its carries ("357+268=7+8+0=15 5+6+1=12
// 3+2+1=06 so 625"). Both share a character-level tokenizer.
//
// Usage:
//
//	go run ./engine/cmd/cot -out DIR
//	cp DIR/direct.bin DIR/steps.bin DIR/tokenizer.bin engine/cot/models/
//
// trains both with the "full" preset (engine/cot/presets.go), then measures
// each model's greedy accuracy on held-out problems of every size and
// writes it, with the run's settings, to DIR/FORMAT.json. -format direct or
// -format steps trains one; -preset tiny runs everything in a second. Ctrl-C
// saves a checkpoint, and the same command resumes from it. The models'
// card, engine/cot/models/MODEL_CARD.md, has the figures of the embedded
// pair.
//
// The flags are:
//
//	-eval int
//		Held-out problems per size for the accuracy in FORMAT.json
//		(0: skip). (default 200)
//	-format string
//		Which models to train: direct, steps or both. (default "direct,steps")
//	-out string
//		The output folder (created if needed; an interrupted run resumes
//		from it).
//	-preset string
//		The training preset: full or tiny. (default "full")
//	-quiet
//		No progress bar.
//	-steps int
//		Override the preset's number of training steps.
//
// The exit status is 2 for a mistake on the command line (a flag or a
// value it does not know, a missing -out, a stray argument), 130 when
// Ctrl-C interrupted the run (a checkpoint is saved first), 1 when a file
// cannot be written or the work fails, 0 otherwise.
package main
