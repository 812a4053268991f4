// Package ggufwrite writes GGUF files, for tests that need a file of their
// own: a model with weights the test chose, metadata with a fault in it,
// every value type for package engine/gguf's reader to read back. Package
// gguf only reads; the engine never writes a GGUF file, so the writer
// lives here, where only the module's tests (and nothing a program
// imports) can reach it.
//
// Write checks what it writes as gguf.Parse checks what it reads (types,
// sizes, unique keys and names) and writes nothing if anything is wrong,
// so a test that wants a file the reader refuses must build its bytes by
// hand.
//
// A Value here is not a gguf.Value: a gguf.Value can only be made by
// reading one, so that a file's values and the reader's are the same
// thing. The value types and tensor types are gguf's (gguf.Uint32,
// gguf.Q8_0), which number them as the GGUF specification does.
package ggufwrite
