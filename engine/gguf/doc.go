// Package gguf reads GGUF files, the model format of llama.cpp, Ollama and
// LM Studio: a header of typed key/value metadata (the model's shape, its
// tokenizer, its chat template), a table of tensor infos, and the tensors'
// data, aligned, at the end.
package gguf
