package ggufwrite

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tokenbytoken/course/engine/gguf"
)

// A Value is a metadata value to write: a number, a bool, a string or an
// array of values of one type (arrays of arrays included), kept as GGUF
// encodes it. Make one with the constructors (Uint32Value, StringsValue,
// ArrayValue...); the zero Value is the uint8 0.
type Value struct {
	typ  gguf.ValueType
	elem gguf.ValueType // an array's element type
	n    int            // an array's length
	bits uint64         // a number or bool: its bits, integers sign-extended
	s    string         // a string's bytes; an array's elements, encoded
	// depth is how many arrays deep the value goes: 0 for a number or a
	// string, 1 for an array of them.
	depth int
	bad   string // why an array built by ArrayValue cannot be written
}

// A KeyValue is one metadata entry.
type KeyValue struct {
	Key   string
	Value Value
}

// size is how many bytes a value of a fixed-size type takes, and 0 for
// strings and arrays, whose size depends on their contents.
func size(t gguf.ValueType) int {
	switch t {
	case gguf.Uint8, gguf.Int8, gguf.Bool:
		return 1
	case gguf.Uint16, gguf.Int16:
		return 2
	case gguf.Uint32, gguf.Int32, gguf.Float32:
		return 4
	case gguf.Uint64, gguf.Int64, gguf.Float64:
		return 8
	}
	return 0
}

// valid says whether GGUF defines the value type.
func valid(t gguf.ValueType) bool { return t <= gguf.Float64 }

// describe says what the value is, for messages, as gguf's messages do:
// "a uint32", "an int8", "an array of strings".
func (v Value) describe() string {
	if v.typ == gguf.Array {
		return "an array of " + plural(v.elem)
	}
	s := v.typ.String()
	if s[0] == 'i' || s[0] == 'a' {
		return "an " + s
	}
	return "a " + s
}

// plural names many values of the type: "strings", "uint32".
func plural(t gguf.ValueType) string {
	switch t {
	case gguf.String, gguf.Array, gguf.Bool:
		return t.String() + "s"
	}
	return t.String()
}

// appendValue appends v as GGUF encodes it after its type: a number in its
// own width, a string as its 8-byte length and bytes, an array as its
// element type, its 8-byte count and its elements.
func appendValue(b []byte, v Value) []byte {
	switch v.typ {
	case gguf.String:
		b = binary.LittleEndian.AppendUint64(b, uint64(len(v.s)))
		return append(b, v.s...)
	case gguf.Array:
		b = binary.LittleEndian.AppendUint32(b, uint32(v.elem))
		b = binary.LittleEndian.AppendUint64(b, uint64(v.n))
		return append(b, v.s...)
	}
	return appendScalar(b, v.typ, v.bits)
}

func appendScalar(b []byte, t gguf.ValueType, bits uint64) []byte {
	switch size(t) {
	case 1:
		return append(b, byte(bits))
	case 2:
		return binary.LittleEndian.AppendUint16(b, uint16(bits))
	case 4:
		return binary.LittleEndian.AppendUint32(b, uint32(bits))
	}
	return binary.LittleEndian.AppendUint64(b, bits)
}

// Uint8Value returns a uint8 Value.
func Uint8Value(v uint8) Value { return Value{typ: gguf.Uint8, bits: uint64(v)} }

// Int8Value returns an int8 Value.
func Int8Value(v int8) Value { return Value{typ: gguf.Int8, bits: uint64(int64(v))} }

// Uint16Value returns a uint16 Value.
func Uint16Value(v uint16) Value { return Value{typ: gguf.Uint16, bits: uint64(v)} }

// Int16Value returns an int16 Value.
func Int16Value(v int16) Value { return Value{typ: gguf.Int16, bits: uint64(int64(v))} }

// Uint32Value returns a uint32 Value.
func Uint32Value(v uint32) Value { return Value{typ: gguf.Uint32, bits: uint64(v)} }

// Int32Value returns an int32 Value.
func Int32Value(v int32) Value { return Value{typ: gguf.Int32, bits: uint64(int64(v))} }

// Uint64Value returns a uint64 Value.
func Uint64Value(v uint64) Value { return Value{typ: gguf.Uint64, bits: v} }

// Int64Value returns an int64 Value.
func Int64Value(v int64) Value { return Value{typ: gguf.Int64, bits: uint64(v)} }

// Float32Value returns a float32 Value, its bits as they are (a NaN keeps
// its payload).
func Float32Value(v float32) Value {
	return Value{typ: gguf.Float32, bits: uint64(math.Float32bits(v))}
}

// Float64Value returns a float64 Value.
func Float64Value(v float64) Value { return Value{typ: gguf.Float64, bits: math.Float64bits(v)} }

// BoolValue returns a bool Value.
func BoolValue(v bool) Value {
	if v {
		return Value{typ: gguf.Bool, bits: 1}
	}
	return Value{typ: gguf.Bool}
}

// StringValue returns a string Value.
func StringValue(s string) Value { return Value{typ: gguf.String, s: s} }

// ArrayValue returns an array of elements of type elem, which may be
// arrays themselves. An element of another type, or an elem that is not a
// GGUF type, makes a Value that Write refuses, saying which.
func ArrayValue(elem gguf.ValueType, elems ...Value) Value {
	v := Value{typ: gguf.Array, elem: elem, n: len(elems), depth: 1}
	if !valid(elem) {
		v.bad = fmt.Sprintf("element type %d is not a GGUF value type", uint32(elem))
		return v
	}
	var b []byte
	for i, e := range elems {
		if e.typ != elem {
			v.bad = fmt.Sprintf("element %d is %s in an array of %s", i, e.describe(), plural(elem))
			return v
		}
		if e.bad != "" {
			v.bad = fmt.Sprintf("element %d: %s", i, e.bad)
			return v
		}
		b = appendValue(b, e)
		v.depth = max(v.depth, 1+e.depth)
	}
	v.s = string(b)
	return v
}

// StringsValue returns an array of strings.
func StringsValue(s []string) Value {
	n := 0
	for _, e := range s {
		n += 8 + len(e)
	}
	b := make([]byte, 0, n)
	for _, e := range s {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(e)))
		b = append(b, e...)
	}
	return Value{typ: gguf.Array, elem: gguf.String, n: len(s), s: string(b), depth: 1}
}

// numbers encodes an array of fixed-size values of type t.
func numbers[T any](t gguf.ValueType, vs []T, bits func(T) uint64) Value {
	b := make([]byte, 0, len(vs)*size(t))
	for _, v := range vs {
		b = appendScalar(b, t, bits(v))
	}
	return Value{typ: gguf.Array, elem: t, n: len(vs), s: string(b), depth: 1}
}

// Uint8sValue returns an array of uint8.
func Uint8sValue(v []uint8) Value {
	return numbers(gguf.Uint8, v, func(x uint8) uint64 { return uint64(x) })
}

// Int8sValue returns an array of int8.
func Int8sValue(v []int8) Value {
	return numbers(gguf.Int8, v, func(x int8) uint64 { return uint64(x) })
}

// Uint16sValue returns an array of uint16.
func Uint16sValue(v []uint16) Value {
	return numbers(gguf.Uint16, v, func(x uint16) uint64 { return uint64(x) })
}

// Int16sValue returns an array of int16.
func Int16sValue(v []int16) Value {
	return numbers(gguf.Int16, v, func(x int16) uint64 { return uint64(x) })
}

// Uint32sValue returns an array of uint32.
func Uint32sValue(v []uint32) Value {
	return numbers(gguf.Uint32, v, func(x uint32) uint64 { return uint64(x) })
}

// Int32sValue returns an array of int32.
func Int32sValue(v []int32) Value {
	return numbers(gguf.Int32, v, func(x int32) uint64 { return uint64(x) })
}

// Uint64sValue returns an array of uint64.
func Uint64sValue(v []uint64) Value {
	return numbers(gguf.Uint64, v, func(x uint64) uint64 { return x })
}

// Int64sValue returns an array of int64.
func Int64sValue(v []int64) Value {
	return numbers(gguf.Int64, v, func(x int64) uint64 { return uint64(x) })
}

// Float32sValue returns an array of float32.
func Float32sValue(v []float32) Value {
	return numbers(gguf.Float32, v, func(x float32) uint64 { return uint64(math.Float32bits(x)) })
}

// Float64sValue returns an array of float64.
func Float64sValue(v []float64) Value {
	return numbers(gguf.Float64, v, math.Float64bits)
}

// BoolsValue returns an array of bools.
func BoolsValue(v []bool) Value {
	return numbers(gguf.Bool, v, func(x bool) uint64 {
		if x {
			return 1
		}
		return 0
	})
}
