// Package bpe turns text into the token ids of a GGUF model's vocabulary and
// back, the way llama.cpp does, and those of a llama2.c tokenizer.bin, the
// way llama2.c's run.c does.
//
// GGUF files describe their tokenizer with plain metadata: a list of token
// strings, a type for each, and either a list of merges (byte-level BPE, the
// "gpt2" model of GPT-2, Llama 3, Qwen 2 and SmolLM) or a score for each
// token (SentencePiece, the "llama" model of Llama 1 and 2). New builds a
// Tokenizer from those values, given as a Spec; the package reads no files.
// A llama2.c vocabulary is SentencePiece too, tokens and scores alone:
// FromLlama2c builds its Tokenizer, which keeps run.c's ways where they
// differ from llama.cpp's (llama2c.go).
//
// Encoding goes through four steps, each in its own file:
//
//   - special.go: control tokens such as "<|im_start|>" are cut out of the
//     text first, when the caller asks for them to be recognised;
//   - pretokenize.go: byte-level BPE splits the rest into words (letters,
//     digits, punctuation, whitespace) with rules that depend on the model
//     (chars.go says which characters are letters, digits and spaces);
//   - merges.go: each word, as bytes, is merged pair by pair in the order
//     of the merge list (bytemap.go gives each byte the character that
//     stands for it in the vocabulary);
//   - sentencepiece.go: SentencePiece instead merges the whole text, spaces
//     written as "▁", by token score, with <0xNN> tokens for unknown bytes
//     (heap.go holds the queue of waiting merges, for both kinds).
//
// Decoding maps each token back to the bytes it stands for (see
// Tokenizer.Piece).
//
// The reference throughout is llama.cpp: the tests compare this package's
// output with llama.cpp's for SmolLM2's vocabulary and others, including
// its handling of corner cases (unusual whitespace, invalid UTF-8, tokens
// missing from a vocabulary). For llama2.c's vocabularies it is run.c,
// whose recorded outputs the engine's tests compare with.
package bpe
