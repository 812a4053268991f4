package gguf_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	. "github.com/tokenbytoken/course/engine/gguf"
	"github.com/tokenbytoken/course/engine/internal/ggufwrite"
)

// raw builds GGUF bytes field by field, for files the writer would refuse.
type raw []byte

func (r raw) u8(v uint8) raw   { return append(r, v) }
func (r raw) u32(v uint32) raw { return binary.LittleEndian.AppendUint32(r, v) }
func (r raw) u64(v uint64) raw { return binary.LittleEndian.AppendUint64(r, v) }
func (r raw) str(s string) raw { return append(r.u64(uint64(len(s))), s...) }

// pad appends zeros up to a multiple of a.
func (r raw) pad(a int) raw { return append(r, make([]byte, (a-len(r)%a)%a)...) }

// header starts a version-3 file with the given counts.
func header(nTensors, nKeys uint64) raw {
	return raw("GGUF").u32(3).u64(nTensors).u64(nKeys)
}

// info appends a tensor info.
func (r raw) info(name string, dims []uint64, typ Type, offset uint64) raw {
	r = r.str(name).u32(uint32(len(dims)))
	for _, d := range dims {
		r = r.u64(d)
	}
	return r.u32(uint32(typ)).u64(offset)
}

func encode(t testing.TB, version uint32, meta []ggufwrite.KeyValue, tensors []ggufwrite.TensorData) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := ggufwrite.Write(&b, version, meta, tensors); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readBack writes meta alone to a file and reads it back: the values as
// a File holds them.
func readBack(t testing.TB, meta []ggufwrite.KeyValue) []KeyValue {
	t.Helper()
	f, err := Parse(encode(t, 3, meta, nil))
	if err != nil {
		t.Fatal(err)
	}
	return f.Metadata
}

// written is v as ggufwrite writes it, for comparing what was read with
// what was written. Floats keep their bits, NaN payloads included.
func written(v Value) ggufwrite.Value {
	switch v.Type() {
	case Array:
		elems, _ := v.Elems()
		w := make([]ggufwrite.Value, len(elems))
		for i, e := range elems {
			w[i] = written(e)
		}
		return ggufwrite.ArrayValue(v.ElemType(), w...)
	case String:
		s, _ := v.Text()
		return ggufwrite.StringValue(s)
	case Bool:
		b, _ := v.Bool()
		return ggufwrite.BoolValue(b)
	case Float32:
		return ggufwrite.Float32Value(math.Float32frombits(uint32(ValueBits(v))))
	case Float64:
		return ggufwrite.Float64Value(math.Float64frombits(ValueBits(v)))
	}
	bits := ValueBits(v) // integers sign-extended
	switch v.Type() {
	case Uint8:
		return ggufwrite.Uint8Value(uint8(bits))
	case Int8:
		return ggufwrite.Int8Value(int8(bits))
	case Uint16:
		return ggufwrite.Uint16Value(uint16(bits))
	case Int16:
		return ggufwrite.Int16Value(int16(bits))
	case Uint32:
		return ggufwrite.Uint32Value(uint32(bits))
	case Int32:
		return ggufwrite.Int32Value(int32(bits))
	case Uint64:
		return ggufwrite.Uint64Value(bits)
	}
	return ggufwrite.Int64Value(int64(bits))
}

// randomTensor makes a tensor of the given type and dimensions filled with
// random bytes: the reader never decodes them.
func randomTensor(rng *rand.Rand, name string, typ Type, dims ...int64) ggufwrite.TensorData {
	n, err := TensorSize(dims, typ)
	if err != nil {
		panic(err)
	}
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	return ggufwrite.TensorData{Name: name, Dims: dims, Type: typ, Data: data}
}

// everyValue is one metadata entry of every type, scalars and arrays,
// including empty and nested arrays, with values at the edges of their
// ranges.
func everyValue() []ggufwrite.KeyValue {
	return []ggufwrite.KeyValue{
		{Key: "general.architecture", Value: ggufwrite.StringValue("llama")},
		{Key: "t.uint8", Value: ggufwrite.Uint8Value(200)},
		{Key: "t.int8", Value: ggufwrite.Int8Value(-100)},
		{Key: "t.uint16", Value: ggufwrite.Uint16Value(60000)},
		{Key: "t.int16", Value: ggufwrite.Int16Value(-30000)},
		{Key: "t.uint32", Value: ggufwrite.Uint32Value(4_000_000_000)},
		{Key: "t.int32", Value: ggufwrite.Int32Value(-2_000_000_000)},
		{Key: "t.float32", Value: ggufwrite.Float32Value(3.14159)},
		{Key: "t.bool_true", Value: ggufwrite.BoolValue(true)},
		{Key: "t.bool_false", Value: ggufwrite.BoolValue(false)},
		{Key: "t.string", Value: ggufwrite.StringValue("héllo, 世界\n\x00 end")},
		{Key: "t.string_empty", Value: ggufwrite.StringValue("")},
		{Key: "t.uint64", Value: ggufwrite.Uint64Value(math.MaxUint64)},
		{Key: "t.int64", Value: ggufwrite.Int64Value(math.MinInt64)},
		{Key: "t.float64", Value: ggufwrite.Float64Value(-2.5e300)},
		{Key: "a.uint8", Value: ggufwrite.Uint8sValue([]uint8{0, 1, 255})},
		{Key: "a.int8", Value: ggufwrite.Int8sValue([]int8{-128, 0, 127})},
		{Key: "a.uint16", Value: ggufwrite.Uint16sValue([]uint16{0, 65535})},
		{Key: "a.int16", Value: ggufwrite.Int16sValue([]int16{-32768, 32767})},
		{Key: "a.uint32", Value: ggufwrite.Uint32sValue([]uint32{0, 1, math.MaxUint32})},
		{Key: "a.int32", Value: ggufwrite.Int32sValue([]int32{math.MinInt32, -1, 0, math.MaxInt32})},
		{Key: "a.float32", Value: ggufwrite.Float32sValue([]float32{0, -1.5, float32(math.Inf(1)), math.SmallestNonzeroFloat32, math.MaxFloat32})},
		{Key: "a.bool", Value: ggufwrite.BoolsValue([]bool{true, false, true})},
		{Key: "a.string", Value: ggufwrite.StringsValue([]string{"a", "", "Ġthe", "<|im_end|>", "\x00\xff"})},
		{Key: "a.uint64", Value: ggufwrite.Uint64sValue([]uint64{0, math.MaxUint64})},
		{Key: "a.int64", Value: ggufwrite.Int64sValue([]int64{math.MinInt64, math.MaxInt64})},
		{Key: "a.float64", Value: ggufwrite.Float64sValue([]float64{math.Pi, -0.0, 1e-300})},
		{Key: "a.empty", Value: ggufwrite.Int32sValue(nil)},
		{Key: "a.nested", Value: ggufwrite.ArrayValue(Array,
			ggufwrite.StringsValue([]string{"x", "yz"}),
			ggufwrite.StringsValue(nil),
			ggufwrite.StringsValue([]string{"w"}))},
		{Key: "a.nested_ints", Value: ggufwrite.ArrayValue(Array,
			ggufwrite.ArrayValue(Array, ggufwrite.Int32sValue([]int32{1, 2}), ggufwrite.Int32sValue([]int32{3})),
			ggufwrite.ArrayValue(Array))},
	}
}

// everyTensor is a tensor of several types, shapes and sizes, one with no
// data.
func everyTensor() []ggufwrite.TensorData {
	rng := rand.New(rand.NewPCG(1, 2))
	return []ggufwrite.TensorData{
		randomTensor(rng, "f32", F32, 4, 3),
		randomTensor(rng, "f16", F16, 7),
		randomTensor(rng, "q8_0", Q8_0, 64, 2),
		randomTensor(rng, "q4_k", Q4_K, 256, 1, 2),
		randomTensor(rng, "i32.4d", I32, 2, 1, 3, 2),
		randomTensor(rng, "empty", F32, 0, 4),
		randomTensor(rng, "q4_1", Q4_1, 32, 3),
	}
}

// canon formats a value as testdata/ggufpy_dump.py does: exactly, with
// strings and arrays reduced to hashes.
func canon(v Value) string {
	switch v.Type() {
	case String:
		s, _ := v.Text()
		return fmt.Sprintf("s%d:%s", len(s), shortHash([]byte(s)))
	case Array:
		elems, _ := v.Elems()
		lines := make([]string, len(elems))
		for i, e := range elems {
			lines[i] = canon(e)
		}
		return fmt.Sprintf("a:%s:%d:%s", v.ElemType(), v.Len(), shortHash([]byte(strings.Join(lines, "\n"))))
	case Float32:
		return fmt.Sprintf("f32:%08x", ValueBits(v))
	case Float64:
		return fmt.Sprintf("f64:%016x", ValueBits(v))
	}
	return v.String() // integers in decimal, bools as true or false
}

func shortHash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

func kvLine(kv KeyValue) string {
	return fmt.Sprintf("kv %s %s %s", kv.Key, kv.Value.Type(), canon(kv.Value))
}

func tensorLine(name string, typ Type, dims []int64, offset int64, data []byte) string {
	d := make([]string, len(dims))
	for i, x := range dims {
		d[i] = fmt.Sprint(x)
	}
	ds := strings.Join(d, ",")
	if ds == "" {
		ds = "-"
	}
	return fmt.Sprintf("tensor %s %d %s %s %d %d %s", name, uint32(typ), typ, ds, offset, len(data), shortHash(data))
}

// dump describes a parsed file in ggufpy_dump.py's lines, without the
// first ("file ..."), which is about the bytes rather than what was read.
func dump(f *File) []string {
	lines := []string{
		fmt.Sprintf("version %d", f.Version),
		fmt.Sprintf("alignment %d", f.Alignment),
		fmt.Sprintf("data_offset %d", f.DataOffset()),
	}
	for _, kv := range f.Metadata {
		lines = append(lines, kvLine(kv))
	}
	for _, t := range f.Tensors {
		lines = append(lines, tensorLine(t.Name, t.Type, t.Dims, t.Offset, t.Data))
	}
	return lines
}

// compareLines reports the first lines where got and want differ.
func compareLines(t *testing.T, got, want []string) {
	t.Helper()
	bad := 0
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, g, w)
			if bad++; bad == 10 {
				t.Fatal("too many differences")
			}
		}
	}
}

// The bytes of a small file, written out by hand from the GGUF
// specification: the reader must read them, and the writer write them.
func TestHandWrittenFile(t *testing.T) {
	file := []byte{
		'G', 'G', 'U', 'F', 3, 0, 0, 0, // magic, version 3
		1, 0, 0, 0, 0, 0, 0, 0, // 1 tensor
		2, 0, 0, 0, 0, 0, 0, 0, // 2 keys
		20, 0, 0, 0, 0, 0, 0, 0, 'g', 'e', 'n', 'e', 'r', 'a', 'l', '.', 'a', 'r', 'c', 'h', 'i', 't', 'e', 'c', 't', 'u', 'r', 'e',
		8, 0, 0, 0, // string
		5, 0, 0, 0, 0, 0, 0, 0, 'l', 'l', 'a', 'm', 'a',
		1, 0, 0, 0, 0, 0, 0, 0, 'n',
		9, 0, 0, 0, // array
		5, 0, 0, 0, // of int32
		2, 0, 0, 0, 0, 0, 0, 0, // 2 elements
		0xff, 0xff, 0xff, 0xff, 7, 0, 0, 0, // -1, 7
		1, 0, 0, 0, 0, 0, 0, 0, 'w',
		2, 0, 0, 0, // 2 dimensions
		2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, // 2 by 1
		0, 0, 0, 0, // F32
		0, 0, 0, 0, 0, 0, 0, 0, // offset 0
	}
	dataStart := (len(file) + 31) / 32 * 32
	file = append(file, make([]byte, dataStart-len(file))...)
	file = append(file, 0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0) // 1.0, -2.0
	file = append(file, make([]byte, 24)...)             // padded to 32

	f, err := Parse(file)
	if err != nil {
		t.Fatal(err)
	}
	if arch, err := f.String("general.architecture"); arch != "llama" || err != nil {
		t.Errorf("general.architecture = %q, %v", arch, err)
	}
	if n, err := f.Ints("n"); !slices.Equal(n, []int64{-1, 7}) || err != nil {
		t.Errorf("n = %v, %v", n, err)
	}
	w, ok := f.Tensor("w")
	if !ok {
		t.Fatal("no tensor w")
	}
	if f.Version != 3 || f.Alignment != 32 || f.DataOffset() != int64(dataStart) ||
		!slices.Equal(w.Dims, []int64{2, 1}) || w.Type != F32 || w.Offset != 0 || w.Elements() != 2 ||
		!bytes.Equal(w.Data, file[dataStart:dataStart+8]) {
		t.Errorf("got version %d, alignment %d, data at %d, tensor %+v", f.Version, f.Alignment, f.DataOffset(), *w)
	}

	written := encode(t, 3, []ggufwrite.KeyValue{
		{Key: "general.architecture", Value: ggufwrite.StringValue("llama")},
		{Key: "n", Value: ggufwrite.Int32sValue([]int32{-1, 7})},
	}, []ggufwrite.TensorData{{Name: "w", Dims: []int64{2, 1}, Type: F32, Data: file[dataStart : dataStart+8]}})
	if !bytes.Equal(written, file) {
		t.Errorf("Write wrote\n%x\nwant\n%x", written, file)
	}
}

// Every value type and tensor type survives a write and a read, in both
// versions and at several alignments.
func TestRoundTrip(t *testing.T) {
	for _, version := range []uint32{2, 3} {
		for _, align := range []uint32{0, 1, 8, 32, 64, 4096} {
			meta := everyValue()
			if align != 0 {
				meta = append(meta, ggufwrite.KeyValue{Key: "general.alignment", Value: ggufwrite.Uint32Value(align)})
			}
			tensors := everyTensor()
			b := encode(t, version, meta, tensors)
			f, err := Parse(b)
			if err != nil {
				t.Fatalf("version %d, alignment %d: %v", version, align, err)
			}
			wantAlign := int64(align)
			if align == 0 {
				wantAlign = 32
			}
			if f.Version != version || f.Alignment != wantAlign || f.DataOffset()%wantAlign != 0 {
				t.Errorf("version %d, alignment %d: read version %d, alignment %d, data at %d",
					version, align, f.Version, f.Alignment, f.DataOffset())
			}
			if len(f.Metadata) != len(meta) {
				t.Fatalf("%d keys, want %d", len(f.Metadata), len(meta))
			}
			for i, kv := range f.Metadata {
				if kv.Key != meta[i].Key || !reflect.DeepEqual(written(kv.Value), meta[i].Value) {
					t.Errorf("key %d: read %s = %v, wrote %s = %v", i, kv.Key, kv.Value, meta[i].Key, meta[i].Value)
				}
			}
			if len(f.Tensors) != len(tensors) {
				t.Fatalf("%d tensors, want %d", len(f.Tensors), len(tensors))
			}
			for i, got := range f.Tensors {
				want := tensors[i]
				if got.Name != want.Name || got.Type != want.Type || !slices.Equal(got.Dims, want.Dims) ||
					!bytes.Equal(got.Data, want.Data) || got.Offset%wantAlign != 0 {
					t.Errorf("tensor %d: read %s %s %v at %d, wrote %s %s %v", i,
						got.Name, got.Type, got.Dims, got.Offset, want.Name, want.Type, want.Dims)
				}
			}
		}
	}
}

// The typed getters return what was written, converting between integer
// types and from float32 or integers to float64, and say what they found
// when they cannot.
func TestGetters(t *testing.T) {
	f, err := Parse(encode(t, 3, everyValue(), nil))
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, got, want any, err error) {
		t.Helper()
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, %v; want %v", what, got, err, want)
		}
	}
	u, err := f.Uint("t.uint32")
	check("Uint(t.uint32)", u, uint64(4_000_000_000), err)
	u, err = f.Uint("t.uint8")
	check("Uint(t.uint8)", u, uint64(200), err)
	u, err = f.Uint("t.uint64")
	check("Uint(t.uint64)", u, uint64(math.MaxUint64), err)
	i, err := f.Int("t.int8")
	check("Int(t.int8)", i, int64(-100), err)
	i, err = f.Int("t.int16")
	check("Int(t.int16)", i, int64(-30000), err)
	i, err = f.Int("t.int64")
	check("Int(t.int64)", i, int64(math.MinInt64), err)
	i, err = f.Int("t.uint16")
	check("Int(t.uint16)", i, int64(60000), err)
	x, err := f.Float("t.float32")
	check("Float(t.float32)", x, float64(float32(3.14159)), err)
	x, err = f.Float("t.float64")
	check("Float(t.float64)", x, -2.5e300, err)
	x, err = f.Float("t.int32")
	check("Float(t.int32)", x, -2e9, err)
	b, err := f.Bool("t.bool_true")
	check("Bool(t.bool_true)", b, true, err)
	b, err = f.Bool("t.bool_false")
	check("Bool(t.bool_false)", b, false, err)
	s, err := f.String("t.string")
	check("String(t.string)", s, "héllo, 世界\n\x00 end", err)
	ss, err := f.Strings("a.string")
	check("Strings(a.string)", ss, []string{"a", "", "Ġthe", "<|im_end|>", "\x00\xff"}, err)
	is, err := f.Ints("a.uint32")
	check("Ints(a.uint32)", is, []int64{0, 1, math.MaxUint32}, err)
	is, err = f.Ints("a.int8")
	check("Ints(a.int8)", is, []int64{-128, 0, 127}, err)
	is, err = f.Ints("a.int64")
	check("Ints(a.int64)", is, []int64{math.MinInt64, math.MaxInt64}, err)
	is, err = f.Ints("a.empty")
	check("Ints(a.empty)", is, []int64{}, err)
	ss, err = f.Strings("a.empty") // an empty array has no element of the wrong type
	check("Strings(a.empty)", ss, []string{}, err)
	fs, err := f.Floats("a.float32")
	check("Floats(a.float32)", fs, []float32{0, -1.5, float32(math.Inf(1)), math.SmallestNonzeroFloat32, math.MaxFloat32}, err)
	fs, err = f.Floats("a.float64")
	check("Floats(a.float64)", fs, []float32{math.Pi, 0, 1e-300}, err)

	nested, _ := f.Lookup("a.nested_ints")
	outer, err := nested.Elems()
	if err != nil || len(outer) != 2 || outer[0].Len() != 2 || outer[1].Len() != 0 {
		t.Fatalf("a.nested_ints elements: %v, %v", outer, err)
	}
	inner, _ := outer[0].Elems()
	is, err = inner[0].Ints()
	check("a.nested_ints[0][0]", is, []int64{1, 2}, err)
	is, err = inner[1].Ints()
	check("a.nested_ints[0][1]", is, []int64{3}, err)
	if got := nested.String(); got != "[[[1, 2], [3]], []]" {
		t.Errorf("a.nested_ints prints as %s", got)
	}

	var ke *KeyError
	if _, err := f.Uint("absent"); !errors.As(err, &ke) || !ke.Missing || ke.Key != "absent" {
		t.Errorf("a missing key: %#v", err)
	}
	if _, err := f.Uint("t.string"); !errors.As(err, &ke) || ke.Missing || ke.Key != "t.string" {
		t.Errorf("a key of the wrong type: %#v", err)
	}
	for _, c := range []struct {
		get  func() error
		want string
	}{
		{func() error { v, _ := f.Lookup("t.string"); _, err := v.Uint(); return err }, `gguf: value is a string, want an integer`},
		{func() error { v, _ := f.Lookup("t.uint8"); _, err := v.Elems(); return err }, `gguf: value is a uint8, want an array`},
		{func() error { _, err := f.Uint("llama.block_count"); return err }, `gguf: no key "llama.block_count"`},
		{func() error { _, err := f.Strings("tokenizer.ggml.merges"); return err }, `gguf: no key "tokenizer.ggml.merges"`},
		{func() error { _, err := f.Uint("t.string"); return err }, `gguf: key "t.string" is a string, want an integer`},
		{func() error { _, err := f.Int("t.string"); return err }, `gguf: key "t.string" is a string, want an integer`},
		{func() error { _, err := f.Uint("t.int8"); return err }, `gguf: key "t.int8" is int8 -100, want a non-negative integer`},
		{func() error { _, err := f.Int("t.uint64"); return err }, `gguf: key "t.uint64" is uint64 18446744073709551615, more than an int64 holds`},
		{func() error { _, err := f.Float("t.bool_true"); return err }, `gguf: key "t.bool_true" is a bool, want a number`},
		{func() error { _, err := f.Bool("t.uint8"); return err }, `gguf: key "t.uint8" is a uint8, want a bool`},
		{func() error { _, err := f.String("a.string"); return err }, `gguf: key "a.string" is an array of strings, want a string`},
		{func() error { _, err := f.Strings("a.int32"); return err }, `gguf: key "a.int32" is an array of int32, want an array of strings`},
		{func() error { _, err := f.Strings("t.string"); return err }, `gguf: key "t.string" is a string, want an array of strings`},
		{func() error { _, err := f.Ints("a.float32"); return err }, `gguf: key "a.float32" is an array of float32, want an array of integers`},
		{func() error { _, err := f.Ints("a.uint64"); return err }, `gguf: key "a.uint64" is an array of uint64 whose element 1, 18446744073709551615, is more than an int64 holds`},
		{func() error { _, err := f.Floats("a.int32"); return err }, `gguf: key "a.int32" is an array of int32, want an array of floats`},
		{func() error { _, err := f.Floats("a.nested"); return err }, `gguf: key "a.nested" is an array of arrays, want an array of floats`},
	} {
		if err := c.get(); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}

// Value.String prints numbers as Go does, strings quoted, and long arrays
// cut short.
func TestValueString(t *testing.T) {
	cases := []struct {
		v    ggufwrite.Value
		want string
	}{
		{ggufwrite.Int8Value(-5), "-5"},
		{ggufwrite.Uint64Value(math.MaxUint64), "18446744073709551615"},
		{ggufwrite.Float32Value(1e-5), "1e-05"},
		{ggufwrite.Float64Value(0.1), "0.1"},
		{ggufwrite.BoolValue(true), "true"},
		{ggufwrite.StringValue("a\"b\n"), `"a\"b\n"`},
		{ggufwrite.StringsValue([]string{"x", "y"}), `["x", "y"]`},
		{ggufwrite.Int32sValue([]int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), "[1, 2, 3, 4, 5, 6, 7, 8, ... 2 more]"},
		{ggufwrite.Int32sValue(nil), "[]"},
	}
	meta := make([]ggufwrite.KeyValue, len(cases))
	for i, c := range cases {
		meta[i] = ggufwrite.KeyValue{Key: fmt.Sprint(i), Value: c.v}
	}
	for i, kv := range readBack(t, meta) {
		if got := kv.Value.String(); got != cases[i].want {
			t.Errorf("got %s, want %s", got, cases[i].want)
		}
	}
}

// Open reads what Write wrote, refuses what is not a regular file, and
// Close leaves the metadata readable.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.gguf")
	tensors := everyTensor()
	if err := os.WriteFile(path, encode(t, 3, everyValue(), tensors), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tensors {
		if !bytes.Equal(f.Tensors[i].Data, tensors[i].Data) {
			t.Errorf("tensor %s: data differs", tensors[i].Name)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if f.Tensors[0].Data != nil {
		t.Error("Data still set after Close")
	}
	if s, err := f.Strings("a.string"); err != nil || s[2] != "Ġthe" {
		t.Errorf("after Close: %q, %v", s, err)
	}

	for _, c := range []struct{ path, want string }{
		{dir, "is a directory, not a regular file"},
		{"/dev/zero", "is a character device"},
		{filepath.Join(dir, "missing.gguf"), "no such file"},
	} {
		if _, err := os.Stat(c.path); err != nil && c.want != "no such file" {
			continue // a system without /dev/zero
		}
		if _, err := Open(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%s): %v, want an error containing %q", c.path, err, c.want)
		}
	}

	bad := filepath.Join(dir, "bad.gguf")
	os.WriteFile(bad, []byte("GGUF\x01\x00\x00\x00"+strings.Repeat("\x00", 32)), 0o644)
	if _, err := Open(bad); err == nil || !strings.HasPrefix(err.Error(), "gguf: "+bad+": GGUF version 1") {
		t.Errorf("Open(%s): %v, want an error naming the file", bad, err)
	}
}
