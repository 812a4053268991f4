package gguf_test

import (
	"encoding/binary"
	"fmt"
	"log"
	"math"

	"github.com/tokenbytoken/course/engine/gguf"
)

// Parse reads a file; its keys are read with typed getters, and a tensor's
// data is a slice of the file. (Open does the same for a path, mapping the
// file rather than reading it.)
func ExampleParse() {
	// A tiny file, byte by byte, every number little-endian: the magic,
	// the version, 1 tensor and 2 keys; each key with its value's type
	// and the value; the tensor's name, dimensions, type and offset in the
	// data; then, aligned to 32 bytes, the data: a 3-by-2 matrix of
	// float32.
	le := binary.LittleEndian
	str := func(b []byte, s string) []byte { return append(le.AppendUint64(b, uint64(len(s))), s...) }
	file := le.AppendUint64(le.AppendUint64(le.AppendUint32([]byte("GGUF"), 3), 1), 2)
	file = str(le.AppendUint32(str(file, "general.architecture"), uint32(gguf.String)), "llama")
	file = le.AppendUint32(le.AppendUint32(str(file, "llama.block_count"), uint32(gguf.Uint32)), 2)
	file = le.AppendUint32(str(file, "w"), 2)                          // 2 dimensions,
	file = le.AppendUint64(le.AppendUint64(file, 3), 2)                // 3 by 2,
	file = le.AppendUint64(le.AppendUint32(file, uint32(gguf.F32)), 0) // F32, at offset 0
	file = append(file, make([]byte, (32-len(file)%32)%32)...)
	for _, x := range []float32{1, 2, 3, 4, 5, 6} {
		file = le.AppendUint32(file, math.Float32bits(x))
	}

	f, err := gguf.Parse(file)
	if err != nil {
		log.Fatal(err)
	}
	arch, err := f.String("general.architecture")
	if err != nil {
		log.Fatal(err)
	}
	blocks, err := f.Uint("llama.block_count")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(arch, blocks)

	_, err = f.String("llama.block_count")
	fmt.Println(err)

	w, ok := f.Tensor("w")
	if !ok {
		log.Fatal("no tensor w")
	}
	// Dims[0] is the length of a row: the second row starts 3 numbers in.
	row1 := w.Data[3*4:]
	fmt.Println(w.Type, w.Dims, w.Elements(), math.Float32frombits(binary.LittleEndian.Uint32(row1)))
	// Output:
	// llama 2
	// gguf: key "llama.block_count" is a uint32, want a string
	// F32 [3 2] 6 4
}
