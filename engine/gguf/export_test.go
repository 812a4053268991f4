package gguf

// The tests are in package gguf_test, because the writer they build their
// files with (engine/internal/ggufwrite) imports this package. These are
// the internals they check against.

// MaxNesting is how deep arrays of arrays may go.
const MaxNesting = maxNesting

// TensorSize is how many bytes a tensor of dims and t takes, or why it
// cannot be read.
var TensorSize = tensorSize

// ValueBits is the bits of a number or a bool: a float's exactly, NaN
// payloads included, which Value.Float does not promise.
func ValueBits(v Value) uint64 { return v.bits }

// FileData is the bytes of the file f was read from, as Open mapped them.
func FileData(f *File) []byte { return f.data }
