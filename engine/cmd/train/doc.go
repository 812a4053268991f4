// Command train trains the course's own models from scratch on the Go
// standard library source of the installed toolchain: a byte-level BPE
// tokenizer, a target model and a small draft model (for speculative
// decoding), all in the llama2.c formats the engine reads.
//
// Usage:
//
//	go run ./engine/cmd/train -all -out DIR
//	go run ./engine/cmd/train -stage tokenizer,target,draft -out DIR
//	go run ./engine/cmd/train -export DIR/target.ckpt
//
// The first retrains everything; the second runs some of the stages. Each
// stage resumes from what DIR already holds: an existing tokenizer and
// token cache are reused, and an interrupted model (Ctrl-C saves a
// checkpoint) continues where it stopped when the same command is run
// again. The third writes the model inside a checkpoint, as it is at that
// step, as a llama2.c file next to it (DIR/target-step1200.bin), so a run
// can be tried with generate or eval while it is still training. The
// models' card, engine/models/MODEL_CARD.md, says how the embedded models
// were trained and how to put retrained ones in their place.
//
// The flags are:
//
//	-all
//		Train the tokenizer, the target and the draft model.
//	-corpus string
//		The corpus folder (default: $(go env GOROOT)/src).
//	-draft-steps int
//		Override the draft model's number of steps.
//	-export string
//		Write the model in this training checkpoint as a llama2.c file
//		next to it, and stop.
//	-generated
//		Also train on generated files (skipped by default).
//	-limit int
//		Read at most this many bytes of corpus (0: all).
//	-out string
//		The output folder (created if needed; resumes from what it holds).
//	-preset string
//		Model sizes and steps: full, or tiny (seconds, for tests).
//		(default "full")
//	-quiet
//		No progress bar.
//	-stage string
//		The stages to run, separated by commas: tokenizer, target, draft.
//	-target-steps int
//		Override the target model's number of steps.
//	-vocab int
//		The vocabulary size (default: the preset's).
//
// A flag that would change nothing in the run asked for (-target-steps when
// the target is not trained, -vocab when the tokenizer is not, a stray
// argument) is refused rather than ignored. The exit status is 2 for a
// mistake on the command line, 130 when Ctrl-C interrupted the run (a
// checkpoint is saved first), 1 when a file cannot be used or the work
// fails. Every file is written atomically; what a killed run left half
// written is removed by the next one.
package main
