package gguf_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	. "github.com/tokenbytoken/course/engine/gguf"
	"github.com/tokenbytoken/course/engine/internal/ggufwrite"
)

// FuzzParse checks that Parse never panics, that its errors say where in
// the input they are, and that whatever it accepts is consistent: every
// value reads, every tensor's data lies in the input, and Write writes it
// back to a file that reads the same.
func FuzzParse(f *testing.F) {
	for _, version := range []uint32{2, 3} {
		f.Add(encode(f, version, everyValue(), everyTensor()))
		f.Add(encode(f, version, []ggufwrite.KeyValue{{Key: "general.alignment", Value: ggufwrite.Uint32Value(8)}}, everyTensor()[:2]))
	}
	f.Add(encode(f, 3, nil, nil))
	for _, c := range hostile {
		f.Add([]byte(c.file))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Parse(b)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Offset < 0 || fe.Offset > int64(len(b)) || !strings.HasPrefix(err.Error(), "gguf: ") {
				t.Fatalf("error %v (%T)", err, err)
			}
			return
		}
		for _, kv := range file.Metadata {
			exercise(kv.Value)
			if v, ok := file.Lookup(kv.Key); !ok || !sameValue(v, kv.Value) {
				t.Fatalf("Lookup(%q) = %v, %v", kv.Key, v, ok)
			}
			file.String(kv.Key)
			file.Uint(kv.Key)
			file.Int(kv.Key)
			file.Float(kv.Key)
			file.Bool(kv.Key)
			file.Strings(kv.Key)
			file.Ints(kv.Key)
			file.Floats(kv.Key)
		}
		tensors := make([]ggufwrite.TensorData, len(file.Tensors))
		for i := range file.Tensors {
			tn := &file.Tensors[i]
			n, err := TensorSize(tn.Dims, tn.Type)
			if err != nil || n != int64(len(tn.Data)) || tn.Elements() < 0 {
				t.Fatalf("tensor %q: %d bytes of data for %s %v (%v)", tn.Name, len(tn.Data), tn.Type, tn.Dims, err)
			}
			if end := file.DataOffset() + tn.Offset + n; end > int64(len(b)) || tn.Offset%file.Alignment != 0 {
				t.Fatalf("tensor %q: data at %d to %d of %d bytes", tn.Name, file.DataOffset()+tn.Offset, end, len(b))
			}
			if got, ok := file.Tensor(tn.Name); !ok || got != tn {
				t.Fatalf("Tensor(%q) is not tensor %d", tn.Name, i)
			}
			tensors[i] = ggufwrite.TensorData{Name: tn.Name, Dims: tn.Dims, Type: tn.Type, Data: tn.Data}
		}

		meta := make([]ggufwrite.KeyValue, len(file.Metadata))
		for i, kv := range file.Metadata {
			meta[i] = ggufwrite.KeyValue{Key: kv.Key, Value: written(kv.Value)}
		}
		var out bytes.Buffer
		if err := ggufwrite.Write(&out, file.Version, meta, tensors); err != nil {
			t.Fatalf("Write refuses what Parse read: %v", err)
		}
		again, err := Parse(out.Bytes())
		if err != nil {
			t.Fatalf("Parse refuses what Write wrote: %v", err)
		}
		// The data section and the offsets in it are Write's choice.
		if again.Version != file.Version || again.Alignment != file.Alignment ||
			len(again.Metadata) != len(file.Metadata) || len(again.Tensors) != len(file.Tensors) {
			t.Fatalf("written and read again: version %d, alignment %d, %d keys, %d tensors; read first: %d, %d, %d, %d",
				again.Version, again.Alignment, len(again.Metadata), len(again.Tensors),
				file.Version, file.Alignment, len(file.Metadata), len(file.Tensors))
		}
		for i, kv := range again.Metadata {
			if want := file.Metadata[i]; kv.Key != want.Key || !sameValue(kv.Value, want.Value) {
				t.Fatalf("key %d written and read again: %q = %v; read first: %q = %v", i, kv.Key, kv.Value, want.Key, want.Value)
			}
		}
		for i, tn := range again.Tensors {
			if want := tensors[i]; tn.Name != want.Name || tn.Type != want.Type || !slices.Equal(tn.Dims, want.Dims) || !bytes.Equal(tn.Data, want.Data) {
				t.Fatalf("tensor %d written and read again: %q %s %v; read first: %q %s %v", i, tn.Name, tn.Type, tn.Dims, want.Name, want.Type, want.Dims)
			}
		}
	})
}

// exercise reads v in every way, its elements too.
func exercise(v Value) {
	_ = v.String()
	v.Uint()
	v.Int()
	v.Float()
	v.Bool()
	v.Text()
	v.Strings()
	v.Ints()
	v.Floats()
	elems, _ := v.Elems()
	for _, e := range elems {
		exercise(e)
	}
}

func sameValue(a, b Value) bool { return canon(a) == canon(b) && a.Type() == b.Type() }
