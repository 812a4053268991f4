package gguf

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ValueType is the type of a metadata value, as GGUF numbers them.
type ValueType uint32

// The metadata value types GGUF defines. The names follow reflect.Kind.
const (
	Uint8   ValueType = 0
	Int8    ValueType = 1
	Uint16  ValueType = 2
	Int16   ValueType = 3
	Uint32  ValueType = 4
	Int32   ValueType = 5
	Float32 ValueType = 6
	Bool    ValueType = 7
	String  ValueType = 8
	Array   ValueType = 9
	Uint64  ValueType = 10
	Int64   ValueType = 11
	Float64 ValueType = 12
)

var valueTypeNames = [...]string{
	Uint8: "uint8", Int8: "int8", Uint16: "uint16", Int16: "int16",
	Uint32: "uint32", Int32: "int32", Float32: "float32", Bool: "bool",
	String: "string", Array: "array", Uint64: "uint64", Int64: "int64",
	Float64: "float64",
}

// String is the type's name in Go's spelling ("uint32", "string"), or
// "value type 13" for an id GGUF does not define.
func (t ValueType) String() string {
	if t.valid() {
		return valueTypeNames[t]
	}
	return fmt.Sprintf("value type %d", uint32(t))
}

func (t ValueType) valid() bool { return t <= Float64 }

// size is how many bytes a value of a fixed-size type takes, and 0 for
// strings and arrays, whose size depends on their contents.
func (t ValueType) size() int {
	switch t {
	case Uint8, Int8, Bool:
		return 1
	case Uint16, Int16:
		return 2
	case Uint32, Int32, Float32:
		return 4
	case Uint64, Int64, Float64:
		return 8
	}
	return 0
}

// minSize is the fewest bytes a value of the type can take: a string
// needs its 8-byte length, an array its element type and count. Every
// count in a file is checked against it, so that no count can claim more
// values than the bytes left could hold.
func (t ValueType) minSize() int {
	switch t {
	case String:
		return 8
	case Array:
		return 12
	}
	return t.size()
}

func (t ValueType) isInt() bool {
	switch t {
	case Uint8, Int8, Uint16, Int16, Uint32, Int32, Uint64, Int64:
		return true
	}
	return false
}

func (t ValueType) signed() bool { return t == Int8 || t == Int16 || t == Int32 || t == Int64 }

// a is the type's name with its article, for messages: "a uint32",
// "an int8".
func (t ValueType) a() string {
	s := t.String()
	if s[0] == 'i' || s[0] == 'a' {
		return "an " + s
	}
	return "a " + s
}

// plural names many values of the type: "strings", "uint32".
func (t ValueType) plural() string {
	switch t {
	case String, Array, Bool:
		return t.String() + "s"
	}
	return t.String()
}

// A KeyValue is one metadata entry.
type KeyValue struct {
	Key   string
	Value Value
}

// A Value is a metadata value: a number, a bool, a string or an array of
// values of one type (arrays of arrays included). Read it with the typed
// methods (Uint, Text, Strings...), which say what they found when the
// type is not the one asked for. Values come from a File (Metadata,
// Lookup): the package reads GGUF and does not write it (the module's
// tests write their files with engine/internal/ggufwrite). The zero Value
// is the uint8 0.
//
// A Value holds its own copy of the bytes, so it stays valid after the
// File it came from is closed. An array is kept as the file encodes it
// and decoded when asked, in one allocation for the result.
type Value struct {
	typ  ValueType
	elem ValueType // an array's element type
	n    int       // an array's length
	bits uint64    // a number or bool: its bits, integers sign-extended
	s    string    // a string's bytes; an array's elements, encoded
}

// Type is the value's type.
func (v Value) Type() ValueType { return v.typ }

// ElemType is the type of an array's elements. For a value that is not an
// array it is Uint8, which means nothing: check Type first.
func (v Value) ElemType() ValueType { return v.elem }

// Len is the number of elements of an array, and 0 for any other value.
func (v Value) Len() int { return v.n }

// String formats the value for printing: numbers as Go prints them,
// strings quoted, arrays in brackets with their first elements and a
// count of the rest.
func (v Value) String() string {
	var b strings.Builder
	v.format(&b)
	return b.String()
}

// printed is how many elements of an array String shows.
const printed = 8

func (v Value) format(b *strings.Builder) {
	switch {
	case v.typ == Array:
		b.WriteByte('[')
		i := 0
		v.each(func(e Value) bool {
			if i == printed {
				fmt.Fprintf(b, ", ... %d more", v.n-printed)
				return false
			}
			if i > 0 {
				b.WriteString(", ")
			}
			e.format(b)
			i++
			return true
		})
		b.WriteByte(']')
	case v.typ == String:
		b.WriteString(strconv.Quote(v.s))
	case v.typ == Bool:
		b.WriteString(strconv.FormatBool(v.bits != 0))
	case v.typ == Float32:
		b.WriteString(strconv.FormatFloat(float64(math.Float32frombits(uint32(v.bits))), 'g', -1, 32))
	case v.typ == Float64:
		b.WriteString(strconv.FormatFloat(math.Float64frombits(v.bits), 'g', -1, 64))
	case v.typ.signed():
		b.WriteString(strconv.FormatInt(int64(v.bits), 10))
	default:
		b.WriteString(strconv.FormatUint(v.bits, 10))
	}
}

// describe says what the value is, for messages: "a string",
// "int32 -5", "an array of strings".
func (v Value) describe() string {
	if v.typ == Array {
		return "an array of " + v.elem.plural()
	}
	return v.typ.a()
}

// A valueError is what a typed getter found instead of what it wanted.
type valueError struct{ msg string }

func (e *valueError) Error() string { return "gguf: value " + e.msg }

func wrongType(v Value, want string) *valueError {
	return &valueError{"is " + v.describe() + ", want " + want}
}

// Uint returns an integer of any type that is not negative.
func (v Value) Uint() (uint64, error) {
	if !v.typ.isInt() {
		return 0, wrongType(v, "an integer")
	}
	if v.typ.signed() && int64(v.bits) < 0 {
		return 0, &valueError{fmt.Sprintf("is %s %d, want a non-negative integer", v.typ, int64(v.bits))}
	}
	return v.bits, nil
}

// Int returns an integer of any type that an int64 holds.
func (v Value) Int() (int64, error) {
	if !v.typ.isInt() {
		return 0, wrongType(v, "an integer")
	}
	if v.typ == Uint64 && v.bits > math.MaxInt64 {
		return 0, &valueError{fmt.Sprintf("is uint64 %d, more than an int64 holds", v.bits)}
	}
	return int64(v.bits), nil
}

// Float returns a float32 or float64, or an integer converted.
func (v Value) Float() (float64, error) {
	switch {
	case v.typ == Float32:
		return float64(math.Float32frombits(uint32(v.bits))), nil
	case v.typ == Float64:
		return math.Float64frombits(v.bits), nil
	case v.typ == Uint64:
		return float64(v.bits), nil
	case v.typ.isInt():
		return float64(int64(v.bits)), nil
	}
	return 0, wrongType(v, "a number")
}

// Bool returns a bool.
func (v Value) Bool() (bool, error) {
	if v.typ != Bool {
		return false, wrongType(v, "a bool")
	}
	return v.bits != 0, nil
}

// Text returns a string's contents (String, by contrast, quotes them for
// printing).
func (v Value) Text() (string, error) {
	if v.typ != String {
		return "", wrongType(v, "a string")
	}
	return v.s, nil
}

// isArrayOf reports whether v is an array whose elements all satisfy ok;
// an empty array of any type has no element of the wrong type.
func (v Value) isArrayOf(ok func(ValueType) bool) bool {
	return v.typ == Array && (v.n == 0 || ok(v.elem))
}

// Strings returns an array of strings. The strings share one copy of
// their bytes, so the only allocation is the slice.
func (v Value) Strings() ([]string, error) {
	if !v.isArrayOf(func(t ValueType) bool { return t == String }) {
		return nil, wrongType(v, "an array of strings")
	}
	out := make([]string, v.n)
	off := 0
	for i := range out {
		n := int(le64(v.s[off:]))
		out[i] = v.s[off+8 : off+8+n]
		off += 8 + n
	}
	return out, nil
}

// Ints returns an array of integers of any type, each of which an int64
// holds.
func (v Value) Ints() ([]int64, error) {
	if !v.isArrayOf(ValueType.isInt) {
		return nil, wrongType(v, "an array of integers")
	}
	out := make([]int64, v.n)
	w := v.elem.size()
	for i := range out {
		bits := decodeScalar(v.elem, v.s[i*w:(i+1)*w])
		if v.elem == Uint64 && bits > math.MaxInt64 {
			return nil, &valueError{fmt.Sprintf("is an array of uint64 whose element %d, %d, is more than an int64 holds", i, bits)}
		}
		out[i] = int64(bits)
	}
	return out, nil
}

// Floats returns an array of float32, or of float64 converted to float32.
func (v Value) Floats() ([]float32, error) {
	if !v.isArrayOf(func(t ValueType) bool { return t == Float32 || t == Float64 }) {
		return nil, wrongType(v, "an array of floats")
	}
	out := make([]float32, v.n)
	if v.elem == Float64 {
		for i := range out {
			out[i] = float32(math.Float64frombits(decodeScalar(Float64, v.s[i*8:i*8+8])))
		}
		return out, nil
	}
	for i := range out {
		out[i] = math.Float32frombits(uint32(decodeScalar(Float32, v.s[i*4:i*4+4])))
	}
	return out, nil
}

// Elems returns an array's elements as Values, in one allocation; they
// share the array's bytes.
func (v Value) Elems() ([]Value, error) {
	if v.typ != Array {
		return nil, wrongType(v, "an array")
	}
	out := make([]Value, 0, v.n)
	v.each(func(e Value) bool { out = append(out, e); return true })
	return out, nil
}

// each calls yield with an array's elements in order until it returns
// false. The encoding it walks was checked when the Value was made.
func (v Value) each(yield func(Value) bool) {
	off := 0
	for range v.n {
		e, end := decodeValue(v.elem, v.s, off)
		if !yield(e) {
			return
		}
		off = end
	}
}

// decodeValue decodes the value of type t encoded at s[off:] and returns
// it with the offset just past it. s has been checked, by the parser or
// by the constructor that encoded it.
func decodeValue(t ValueType, s string, off int) (Value, int) {
	switch t {
	case String:
		n := int(le64(s[off:]))
		return Value{typ: String, s: s[off+8 : off+8+n]}, off + 8 + n
	case Array:
		elem := ValueType(le32(s[off:]))
		n := int(le64(s[off+4:]))
		start := off + 12
		end := start
		if w := elem.size(); w > 0 {
			end += n * w
		} else {
			for range n {
				_, end = decodeValue(elem, s, end)
			}
		}
		return Value{typ: Array, elem: elem, n: n, s: s[start:end]}, end
	}
	w := t.size()
	return Value{typ: t, bits: decodeScalar(t, s[off:off+w])}, off + w
}

// decodeScalar returns the bits of a fixed-size value encoded in b
// (exactly its size), integers sign-extended.
func decodeScalar(t ValueType, b string) uint64 {
	switch t {
	case Uint8, Bool:
		return uint64(b[0])
	case Int8:
		return uint64(int64(int8(b[0])))
	case Uint16:
		return uint64(uint16(b[0]) | uint16(b[1])<<8)
	case Int16:
		return uint64(int64(int16(uint16(b[0]) | uint16(b[1])<<8)))
	case Uint32, Float32:
		return uint64(le32(b))
	case Int32:
		return uint64(int64(int32(le32(b))))
	}
	return le64(b)
}

func le64(b string) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }

func le32(b string) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
