// Package gguf reads GGUF files, the model format of llama.cpp, Ollama and
// LM Studio: a header of typed key/value metadata (the model's shape, its
// tokenizer, its chat template), a table of tensor infos, and the tensors'
// data, aligned, at the end. It only reads them: the engine never writes
// one, and the tests that need a file of their own write it with
// engine/internal/ggufwrite.
//
// Open maps a file and Parse reads one held in memory; either returns a
// File with the metadata and tensor infos in file order. Metadata values
// are read with typed getters (String, Uint, Int, Float, Bool, Strings,
// Ints, Floats), whose errors name the key and say what was found. A
// tensor's Data is a slice of the file's bytes: nothing is copied.
//
// GGUF versions 2 and 3 are read: little-endian files of the two are
// the same, and version 3 added big-endian ones, which are refused by
// name. Version 1, with 32-bit counts, is refused. The tensor types are
// those of ggml, in types.go.
//
// A file is untrusted input. Every count, length, dimension and offset in
// it is checked against the bytes that are really there before anything
// is allocated for it, so a header cannot make the reader allocate more
// than a small multiple of the file's size, and every fault gets an error
// naming the value and its byte offset (a FormatError), never a panic.
// Tensors must have a type GGUF defines, rows of whole blocks, data that
// lies inside the file at an offset that is a multiple of the alignment,
// and no overlap with one another; keys and tensor names must be unique.
package gguf
