package ggufwrite

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine/gguf"
)

// Write refuses what Parse would, and writes nothing then.
func TestWriteRefuses(t *testing.T) {
	ok := []TensorData{{Name: "w", Dims: []int64{2}, Type: gguf.F32, Data: make([]byte, 8)}}
	for _, c := range []struct {
		version uint32
		meta    []KeyValue
		tensors []TensorData
		want    string
	}{
		{1, nil, nil, "version 1, want 2 or 3"},
		{3, []KeyValue{{Key: "a", Value: Uint8Value(1)}, {Key: "a", Value: Uint8Value(2)}}, nil, `key "a" appears twice`},
		{3, []KeyValue{{Key: "general.alignment", Value: Uint64Value(64)}}, nil, "general.alignment is a uint64, want a uint32"},
		{3, []KeyValue{{Key: "general.alignment", Value: Uint32Value(48)}}, nil, "general.alignment is 48, want a power of two"},
		{3, []KeyValue{{Key: "a", Value: ArrayValue(gguf.Uint8, Uint8Value(1), Int8Value(2))}}, nil, `key "a": element 1 is an int8 in an array of uint8`},
		{3, []KeyValue{{Key: "a", Value: ArrayValue(gguf.ValueType(13))}}, nil, `key "a": element type 13 is not a GGUF value type`},
		{3, []KeyValue{{Key: "a", Value: ArrayValue(gguf.Array, ArrayValue(gguf.String, Int8Value(2)))}}, nil, `key "a": element 0: element 0 is an int8 in an array of strings`},
		{3, []KeyValue{{Key: "a", Value: nest(maxNesting + 1)}}, nil, `key "a": arrays nested 33 deep, more than 32`},
		{3, nil, append(ok, ok...), `tensor "w" appears twice`},
		{3, nil, []TensorData{{Name: "w", Dims: []int64{3}, Type: gguf.F32, Data: make([]byte, 8)}}, `tensor "w": 8 bytes of data, want 12 for F32 [3]`},
		{3, nil, []TensorData{{Name: "w", Dims: []int64{1, 1, 1, 1, 1}, Type: gguf.F32, Data: make([]byte, 4)}}, `tensor "w" has 5 dimensions, at most 4`},
		{3, nil, []TensorData{{Name: "w", Dims: []int64{-1}, Type: gguf.F32, Data: nil}}, `tensor "w": dimensions [-1]: -1 is negative`},
		{3, nil, []TensorData{{Name: "w", Dims: []int64{16}, Type: gguf.Q4_0, Data: make([]byte, 9)}}, `tensor "w": a row of 16 numbers is not a whole number of Q4_0 blocks of 32`},
		{3, nil, []TensorData{{Name: "w", Dims: []int64{1}, Type: gguf.Type(99), Data: make([]byte, 4)}}, `tensor "w": type id 99, which GGUF does not define`},
	} {
		var b bytes.Buffer
		err := Write(&b, c.version, c.meta, c.tensors)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
		if b.Len() != 0 {
			t.Errorf("%s: wrote %d bytes", c.want, b.Len())
		}
	}
	// The nesting and the dimensions gguf.Parse reads, Write writes.
	var b bytes.Buffer
	four := []TensorData{{Name: "w", Dims: []int64{1, 1, 1, 1}, Type: gguf.F32, Data: make([]byte, 4)}}
	if err := Write(&b, 3, []KeyValue{{Key: "a", Value: nest(maxNesting)}}, four); err != nil {
		t.Fatal(err)
	}
	if _, err := gguf.Parse(b.Bytes()); err != nil {
		t.Errorf("gguf.Parse refuses what Write wrote: %v", err)
	}
}

// nest returns arrays nested depth deep around an empty one.
func nest(depth int) Value {
	v := ArrayValue(gguf.Uint8)
	for range depth - 1 {
		v = ArrayValue(gguf.Array, v)
	}
	return v
}
