// Command tokenize shows how a model's tokenizer cuts text into tokens: a
// line per token, its id and the text it stands for.
//
// Usage:
//
//	go run ./engine/cmd/tokenize [flags] TEXT
//
// For example:
//
//	go run ./engine/cmd/tokenize -model smollm2 "The capital of France is"
//	go run ./engine/cmd/tokenize -model smollm2 -json "<|im_start|>user"
//	go run ./engine/cmd/tokenize -model smollm2 -special=false "<|im_start|>user"
//
// The text is tokenized as a prompt is: with BOS first when the model asks
// for it, and special tokens written in it ("<|im_start|>") read as those
// tokens, as llama.cpp reads a prompt; -special=false reads them as plain
// text.
//
// The flags are:
//
//	-json
//		Print the ids as a JSON array.
//	-model string
//		Whose tokenizer: "default" (the built-in model), "smollm2"
//		(SmolLM2-135M-Instruct, installed by make install), a GGUF file,
//		or a llama2.c checkpoint. (default "default")
//	-special
//		Read special tokens written in the text (<|im_start|>) as those
//		tokens; false reads them as plain text. (default true)
//	-tokenizer string
//		A llama2.c checkpoint's tokenizer.bin (default: beside the
//		checkpoint).
//
// Exit status: 0 on success, 1 when the model or text cannot be read, 2 for
// a mistake on the command line.
package main
