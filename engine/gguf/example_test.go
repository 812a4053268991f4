package gguf_test

import (
	"bytes"
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
	// A tiny file: two keys and one 3-by-2 matrix of float32.
	data := make([]byte, 0, 24)
	for _, x := range []float32{1, 2, 3, 4, 5, 6} {
		data = binary.LittleEndian.AppendUint32(data, math.Float32bits(x))
	}
	var file bytes.Buffer
	err := gguf.Write(&file, 3, []gguf.KeyValue{
		{Key: "general.architecture", Value: gguf.StringValue("llama")},
		{Key: "llama.block_count", Value: gguf.Uint32Value(2)},
	}, []gguf.TensorData{
		{Name: "w", Dims: []int64{3, 2}, Type: gguf.F32, Data: data},
	})
	if err != nil {
		log.Fatal(err)
	}

	f, err := gguf.Parse(file.Bytes())
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
