// Command eval measures how well a model predicts a text file: bits per
// byte (comparable with any tokenizer, and with compressors: a file
// compressed to s bytes costs 8·s bits) and nats per token.
//
// Usage:
//
//	go run ./engine/cmd/eval [flags] [file or folder ...]
//
// For example:
//
//	go run ./engine/cmd/eval -text FILE                 # the embedded default model
//	go run ./engine/cmd/eval -model draft -text FILE    # the embedded draft model
//	go run ./engine/cmd/eval -model m.bin -tokenizer tokenizer.bin -text FILE
//	go run ./engine/cmd/eval -funcs 50                  # share of sampled functions that parse
//	go run ./engine/cmd/eval a.go b.go some/dir         # one line per file, and the total
//	go run ./engine/cmd/eval -repeat -text FILE         # also: what a second copy costs
//	go run ./engine/cmd/eval -stops 200 -prompt "func " # where texts end, against the corpus
//
// -repeat measures copying from the context: the text is scored again
// followed by itself, and the extra bits are the cost of the second copy.
// A compressor such as xz stores a repeat as a short reference; a model
// pays little for it only if it has learned to look up where the current
// text occurred before and read what came next.
//
// -stops N measures where the model ends its texts: N samples from -prompt
// at temperature 1 (the model's own distribution) and N at the generate
// command's defaults, each until the model writes end-of-text, their
// lengths in tokens and lines set beside those of the documents it was
// trained on (the Go files under -corpus, by default the installed
// toolchain's source, cut at every function as the trainer cuts them).
//
// With several files (or a directory: every .go file below it), eval
// prints one line per file and a total over all of them (the total bits
// divided by the total bytes), each next to gzip -9 on the same bytes, so
// the model can be compared with a compressor without leaving Go.
//
// The flags are:
//
//	-corpus string
//		With -stops: the corpus the model was trained on
//		(default: $(go env GOROOT)/src).
//	-funcs int
//		Instead of -text: sample this many functions from -prompt, each
//		until its closing brace, and report how many parse.
//	-model string
//		The model: "default" (the embedded target), "draft" (the embedded
//		draft), "smollm2" (SmolLM2-135M-Instruct, installed by make
//		install), a GGUF file or a llama2.c checkpoint. (default "default")
//	-prompt string
//		The prompt of -funcs and -stops. (default "func ")
//	-repeat
//		With -text: also report the bits per byte of a second copy of the
//		text.
//	-show int
//		Print the first samples of -funcs (0: none). (default 3)
//	-stops int
//		Instead of -text: sample this many texts at each of two settings
//		until end-of-text and compare their lengths with the training
//		documents'.
//	-temperature float
//		The sampling temperature of -funcs (0 is greedy). (default 0.8)
//	-text string
//		The text file to evaluate.
//	-tokenizer string
//		A llama2.c checkpoint's tokenizer.bin (default: tokenizer.bin
//		next to the model).
//	-top-p float
//		The top-p of -funcs, in (0, 1] (1 is off). (default 0.95)
//
// A flag that would change nothing in the run asked for (-prompt without
// -funcs or -stops, -corpus without -stops, -repeat with several files,
// -tokenizer with a built-in model) is refused rather than ignored. Memory
// follows the work asked, not the model's header: work that cannot fit in
// the memory available is refused before it starts. The exit status is 2
// for a mistake on the command line, 1 when a file cannot be used or the
// work fails.
package main
