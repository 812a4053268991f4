// Command generate writes text with a model, one token at a time,
// streaming each piece as soon as it is safe to show.
//
// Usage:
//
//	go run ./engine/cmd/generate [flags]
//
// For example:
//
//	go run ./engine/cmd/generate -prompt "// run executes the command." -seed 10
//	go run ./engine/cmd/generate -prompt "// Package sort" -temperature 0 -n 20 -json -logprobs 3
//	go run ./engine/cmd/generate -model smollm2 -chat "Name three fruits." -temperature 0
//	go run ./engine/cmd/generate -model smollm2 -chat "Describe a city as JSON." -json-schema engine/constrain/testdata/city.json -temperature 0.9
//	go run ./engine/cmd/generate -prompt "// Call " -regex "[0-9]{3}-[0-9]{4}" -seed 2
//	go run ./engine/cmd/generate -model smollm2 -chat "Write a SQL query for the users older than 30." -grammar engine/constrain/testdata/select.gbnf -temperature 0
//	go run ./engine/cmd/generate -model stories15M.bin -tokenizer tokenizer.bin -prompt "Once upon a time" -temperature 0
//
// Without -model it runs the course's built-in model (models.Default);
// -model smollm2 runs SmolLM2-135M-Instruct, which make install puts in
// kernel/.models/ (models.SmolLM2); any other -model is a path: a GGUF file
// of the llama architecture, or a llama2.c checkpoint with its tokenizer.bin
// (engine.LoadModel tells them apart by their first bytes).
//
// The text goes to stdout as it is written. Then stderr says why generation
// stopped, in words ("stopped: the model wrote end-of-text as its 9th
// token", "stopped: 256 tokens written, the limit set by -n 256", "stopped:
// the text reached the stop sequence "\n}\n" (left out of the text) after 40
// tokens", "stopped: the -timeout of 2s ran out after 90 tokens"), and how
// fast it ran. Both lines count the same tokens, every one the model
// generated: the end token too, which is not part of the text but took a
// forward pass like the others. Without -seed, the command picks a seed and
// prints it, so that a text can be written again. With -json it prints
// instead one JSON object per token (id, text, log-probability and, with
// -logprobs N, the N likeliest alternatives) and a final summary (the finish
// reason in a word and in words, token counts, prefill and decode times and
// speeds); a number JSON cannot hold, NaN or infinite, is written as null.
// Only -json shows log-probabilities, so only -json has the engine compute
// them (decoding.Options.NoLogProbs): the text output saves a pass over the
// vocabulary at every token.
//
// Structured output: -json-schema FILE, -regex RE or -grammar FILE (one
// of them) limits the text to a language, with every sampling flag (see
// decoding.Options.Constraint and package engine/constrain for what each
// supports). The text then ends as soon as it is complete and nothing may
// follow ("stopped: the text is complete: ..."), or when the model writes
// its end token, which is allowed only once the text is complete; with
// -n, the last tokens close what is open, so that the text is complete
// when the limit is reached. If no token of the model can continue the
// text, it ends there ("stopped: no token of the model can continue the
// text ..."). stdout then carries exactly the text, without a final
// newline (the summary on stderr starts on a line of its own), so that
// with -chat it is the answer alone, ready for a program to read. The
// language is compiled before the model is loaded: a broken schema,
// regular expression or grammar is a usage error that gives its line and
// column. Beam search and speculative decoding do not apply a constraint
// and are refused with one.
//
// The defaults, -temperature 0.7 -topp 0.9 -repeat-penalty 1.3
// -penalty-window 64 -n 256, are the settings under which the built-in
// model writes its most readable text: at temperature 1 it wanders, and at
// lower temperatures without a penalty it loops. Greedy decoding
// (-temperature 0) takes the likeliest token at every step, with no
// penalty unless one is given.
//
// A flag that would change nothing in the run asked for is refused, not
// ignored: -logprobs without -json; -topk, -topp, -minp or -seed with
// -temperature 0; sampling flags with -beam; filters and penalties with
// -draft; -include-stop without -stop; -system without -chat; a negative
// -timeout; more than one of -json-schema, -regex and -grammar. So is a draft model whose context is shorter than the run
// needs.
//
// The flags are:
//
//	-beam int
//		Beam search with this many beams (0: off); deterministic, so it
//		takes no sampling flag.
//	-chat string
//		Ask a chat model (such as -model smollm2) this, rendered with the
//		chat template in the model's file; stdout gets the answer alone,
//		and generation ends at the model's end-of-turn token.
//	-draft string
//		Draft model for speculative decoding: a path, or "default" for
//		the built-in draft.
//	-frequency float
//		Frequency penalty, subtracted from a token's logit once per use.
//	-grammar string
//		Write only a sentence of the grammar in this file (GBNF, such as
//		engine/constrain/testdata/select.gbnf).
//	-include-stop
//		End the text with the stop sequence that ended it (with -stop).
//	-json
//		Print one JSON object per token, and a summary.
//	-json-schema string
//		Write only JSON that validates against the JSON Schema in this
//		file (such as engine/constrain/testdata/city.json).
//	-logprobs int
//		With -json, list the N likeliest tokens at every step.
//	-minp float
//		Keep the tokens whose probability is at least minp times the
//		likeliest's; 0 is off.
//	-model string
//		The model to run: "smollm2", a GGUF file, or a llama2.c checkpoint.
//		(default: the built-in model)
//	-n int
//		Most new tokens to write (0: until the context is full).
//		(default 256)
//	-no-cache
//		Recompute the whole prefix at every step, without the KV cache:
//		the same tokens, slower.
//	-penalty-window int
//		Penalties look at the last N tokens only (0: the whole text).
//		(default 64)
//	-presence float
//		Presence penalty, subtracted once from every token already used.
//	-prompt string
//		The text to continue.
//	-regex string
//		Write only a match of this regular expression: the whole text
//		matches it.
//	-repeat-penalty float
//		Repetition penalty; 1 is off. It applies when sampling: with
//		-temperature 0 it is 1 unless given. (default 1.3)
//	-seed uint
//		Random seed (0: pick one from the clock and report it).
//	-speculate int
//		Tokens the draft proposes per step (default: 4 with -draft; with
//		the built-in model, -speculate alone uses the built-in draft).
//	-stop value
//		A stop sequence; repeat the flag for several.
//	-system string
//		With -chat, the system message (default: the chat template's
//		own, if it has one).
//	-temperature float
//		Sampling temperature; 0 is greedy. (default 0.7)
//	-timeout duration
//		Stop after this long, such as 2s (0: no limit).
//	-tokenizer string
//		A llama2.c checkpoint's tokenizer.bin (default: tokenizer.bin
//		beside the model).
//	-topk int
//		Keep only the k likeliest tokens; 0 is off.
//	-topp float
//		Top-p (nucleus) in (0, 1]: keep the likeliest tokens that hold
//		this share of the probability; 1 is off. (default 0.9)
//
// The exit status is 2 for a mistake on the command line (a flag, a value
// out of range, flags that do not go together), 1 when a file cannot be
// used or the work fails, 0 otherwise.
package main
