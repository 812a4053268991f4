// Command bench measures the engine's speed on a model file, or on random
// weights of any shape: the load, the prefill of a prompt (batched, and
// token by token for comparison), the decode of new tokens, alone and
// through decoding.Generate, the share of every part of the forward pass, the
// KV cache's size, resident memory, and what generating without the cache
// or with speculative decoding changes. It prints figures; it checks
// nothing.
//
// Usage:
//
//	go run ./engine/cmd/bench -model PATH [flags]
//	go run ./engine/cmd/bench -shape dim,hidden,layers,heads,kv_heads,vocab,seq_len [flags]
//
// For example:
//
//	go run ./engine/cmd/bench -model smollm2
//	go run ./engine/cmd/bench -model stories260K.bin -steps 256 -prompt 128 -runs 5 -json
//	go run ./engine/cmd/bench -model stories260K.bin -draft draft.bin -speculate 4
//	go run ./engine/cmd/bench -shape 288,768,6,6,6,32000,256
//
// -shape measures a model of that shape with random weights made in memory
// (speed does not depend on the weights), so no download is needed to
// measure a big model (288,768,6,6,6,32000,256 is llama2.c's stories15M).
// To keep such a model as a file, with a matching tokenizer:
//
//	go run ./engine/cmd/bench -make-model /tmp/random15M.bin -make-tokenizer /tmp/tok32000.bin \
//	      -dim 288 -hidden 768 -layers 6 -heads 6 -kv-heads 6 -vocab 32000 -seq-len 256
//
// The decode is timed twice: the forward passes alone, each followed by
// the argmax of its logits, as llama2.c's run.c runs them; and the same
// greedy decode through decoding.Generate, as the generate command runs it,
// with the sampler, every token's log-probability and text. Their runs
// alternate, and each round's ratio of the two rates is kept: the cost of
// everything around the forward pass. Generate starts from a one-token
// prompt (BOS) with the model's tokenizer — a GGUF file's own, -tokenizer,
// the tokenizer.bin beside a llama2.c checkpoint, or else one made up for
// the vocabulary — and its time is the steps' own (the prompt's pass and
// the decode, as its Stats count them). When the model ends its text
// before -steps positions, its end tokens are banned (one more stage of
// the sampler) so that every position runs, and the report says so.
//
// Every timing is run once to warm up (caches, page faults, the CPU's
// clock), then -runs times; the median is reported, with the fastest and
// slowest. Timings are wall-clock and vary with whatever else the machine
// is doing: compare two builds in one session, runs interleaved. Resident
// memory is read from /proc on Linux and left out elsewhere.
//
// versus-llama2c.sh, beside this file, runs bench and llama2.c's run.c
// (compiled from a checkout the user names) side by side, interleaved, on
// the same positions (-until-bos), and prints their decode rates and
// ratios, with what decoding.Generate and the generate command keep of the
// raw decode's rate. versus-llamacpp.sh compares decode and prefill with
// a llama.cpp build the user names, and versus-smollm2.sh does so on
// SmolLM2. versus-server.sh serves SmolLM2 with the course's server and
// with llama.cpp's llama-server, one after the other, and drives both
// with engine/cmd/load at 1, 4, 16 and 32 clients at once: many users,
// continuous batching; and the time to first token with a shared system
// prompt, cold and from the prefix cache. soak.sh runs the server's long
// soak (64 clients for 60 seconds on loopback, some hanging up, through
// a KV pool small enough to preempt). Each run of the versus scripts that
// finishes is appended
// to results.md, beside them, with its command, commit, date and machine:
// the figures, kept out of the code's comments, and how they move over time.
//
// The flags are:
//
//	-dim int
//		With -make-model: the model's width. (default 288)
//	-draft string
//		A draft checkpoint, for a speculative decoding measurement.
//	-draft-layers int
//		Use the model's own first N layers as the draft (a layer-skipping
//		draft), for a speculative decoding measurement.
//	-heads int
//		With -make-model: query heads. (default 6)
//	-hidden int
//		With -make-model: the MLP's width. (default 768)
//	-json
//		Print the figures as one JSON object instead of the table.
//	-kv-heads int
//		With -make-model: key/value heads. (default 6)
//	-layers int
//		With -make-model: layers. (default 6)
//	-make-model string
//		Write a model with random weights to this path, and exit.
//	-make-tokenizer string
//		With -make-model: also write a tokenizer of matching vocabulary.
//	-model string
//		The model to measure: a llama2.c checkpoint, a GGUF file, or
//		"smollm2" (SmolLM2-135M-Instruct, installed by make install).
//	-no-cache int
//		Tokens to generate with and without the KV cache (0 skips).
//		(default 64)
//	-prompt int
//		The prompt's length in tokens, for the prefill measurement.
//		(default 128)
//	-runs int
//		Timed repetitions of each measurement, after one warm-up; the
//		median is printed. (default 5)
//	-seed uint
//		The seed of the random weights, and of the prefill's random
//		prompt. (default 1)
//	-seq-len int
//		With -make-model: the context length. (default 256)
//	-shape string
//		Measure random weights of this shape instead of a file:
//		dim,hidden,layers,heads,kv_heads,vocab,seq_len.
//	-speculate int
//		Tokens the draft proposes per round (with -draft or
//		-draft-layers). (default 4)
//	-steps int
//		Positions to decode, starting from BOS (like llama2.c's -n).
//		(default 256)
//	-tokenizer string
//		The tokenizer of a llama2.c checkpoint, for the Generate row
//		(default: tokenizer.bin beside it, if there is one; else one is
//		made up).
//	-threads int
//		Cores Go may use (GOMAXPROCS), from 1 up to the machine's CPUs
//		(default: all of them).
//	-until-bos
//		End the decode when the model's greedy choice is BOS (token 1), as
//		llama2.c's run.c does; -steps is then the most positions. Every
//		decode row (Generate's too) runs that many positions, and the
//		report says where it ended.
//	-vocab int
//		With -make-model: the vocabulary size. (default 32000)
//
// A flag that would change nothing in the run asked for (a shape flag
// without -make-model, -speculate without a draft) is refused rather than
// ignored. The exit status is 2 for a mistake on the command line, 1 when a
// file cannot be used or the work fails (a shape too big for memory
// included).
package main
