package ggufwrite

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"

	"github.com/tokenbytoken/course/engine/gguf"
)

// What gguf.Parse reads, which Write must not go beyond.
const (
	magic            = "GGUF"
	alignmentKey     = "general.alignment"
	defaultAlignment = 32 // GGUF_DEFAULT_ALIGNMENT
	maxDims          = 4  // GGML_MAX_DIMS
	maxNesting       = 32 // arrays of arrays, as deep as the reader goes
)

// TensorData is a tensor for Write: its name, dimensions in ggml's order
// (Dims[0] is the length of a row), type, and bytes, exactly as many as
// the type and dimensions take.
type TensorData struct {
	Name string
	Dims []int64
	Type gguf.Type
	Data []byte
}

// Write writes a GGUF file of the given version (2 or 3) to w: the
// metadata in the order given, then the tensor infos, then each tensor's
// data, in order, each starting on a multiple of the alignment and padded
// with zeros to the next. The alignment is general.alignment's if meta
// has it (a uint32 power of two), else 32.
//
// Write checks what it writes as gguf.Parse checks what it reads (types,
// sizes, unique keys and names), and writes nothing if anything is wrong.
func Write(w io.Writer, version uint32, meta []KeyValue, tensors []TensorData) error {
	if version != 2 && version != 3 {
		return fmt.Errorf("ggufwrite: version %d, want 2 or 3", version)
	}
	align := int64(defaultAlignment)
	keys := make(map[string]bool, len(meta))
	for _, kv := range meta {
		if keys[kv.Key] {
			return fmt.Errorf("ggufwrite: key %q appears twice", kv.Key)
		}
		keys[kv.Key] = true
		if err := checkValue(kv.Value); err != nil {
			return fmt.Errorf("ggufwrite: key %q: %v", kv.Key, err)
		}
		if kv.Key == alignmentKey {
			a, err := checkAlignment(kv.Value)
			if err != nil {
				return fmt.Errorf("ggufwrite: %v", err)
			}
			align = a
		}
	}

	b := []byte(magic)
	b = binary.LittleEndian.AppendUint32(b, version)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(tensors)))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(meta)))
	for _, kv := range meta {
		b = appendString(b, kv.Key)
		b = binary.LittleEndian.AppendUint32(b, uint32(kv.Value.typ))
		b = appendValue(b, kv.Value)
	}
	names := make(map[string]bool, len(tensors))
	offset := int64(0)
	for _, t := range tensors {
		if names[t.Name] {
			return fmt.Errorf("ggufwrite: tensor %q appears twice", t.Name)
		}
		names[t.Name] = true
		if len(t.Dims) > maxDims {
			return fmt.Errorf("ggufwrite: tensor %q has %d dimensions, at most %d", t.Name, len(t.Dims), maxDims)
		}
		n, err := tensorSize(t.Dims, t.Type)
		if err != nil {
			return fmt.Errorf("ggufwrite: tensor %q: %v", t.Name, err)
		}
		if int64(len(t.Data)) != n {
			return fmt.Errorf("ggufwrite: tensor %q: %d bytes of data, want %d for %s %v", t.Name, len(t.Data), n, t.Type, t.Dims)
		}
		b = appendString(b, t.Name)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(t.Dims)))
		for _, d := range t.Dims {
			b = binary.LittleEndian.AppendUint64(b, uint64(d))
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(t.Type))
		b = binary.LittleEndian.AppendUint64(b, uint64(offset))
		offset = alignUp(offset+n, align)
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("ggufwrite: %w", err)
	}
	if err := writeZeros(w, alignUp(int64(len(b)), align)-int64(len(b))); err != nil {
		return fmt.Errorf("ggufwrite: %w", err)
	}
	for _, t := range tensors {
		_, err := w.Write(t.Data)
		if err == nil {
			err = writeZeros(w, alignUp(int64(len(t.Data)), align)-int64(len(t.Data)))
		}
		if err != nil {
			return fmt.Errorf("ggufwrite: tensor %q: %w", t.Name, err)
		}
	}
	return nil
}

func alignUp(n, a int64) int64 { return (n + a - 1) &^ (a - 1) }

// writeZeros writes n zero bytes, in pieces, as an alignment can be as
// large as 2 GB.
func writeZeros(w io.Writer, n int64) error {
	var zeros [4096]byte
	for n > 0 {
		k := min(n, int64(len(zeros)))
		if _, err := w.Write(zeros[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s)))
	return append(b, s...)
}

// checkValue returns why v cannot be written, if it cannot: an array
// built with an element of the wrong type, or arrays nested deeper than
// gguf.Parse reads.
func checkValue(v Value) error {
	if v.bad != "" {
		return fmt.Errorf("%s", v.bad)
	}
	if v.depth > maxNesting {
		return fmt.Errorf("arrays nested %d deep, more than %d", v.depth, maxNesting)
	}
	return nil
}

// checkAlignment returns general.alignment's value, which must be a
// uint32 power of two, as the reader wants it.
func checkAlignment(v Value) (int64, error) {
	if v.typ != gguf.Uint32 {
		return 0, fmt.Errorf("%s is %s, want a uint32", alignmentKey, v.describe())
	}
	if v.bits == 0 || v.bits&(v.bits-1) != 0 {
		return 0, fmt.Errorf("%s is %d, want a power of two", alignmentKey, v.bits)
	}
	return int64(v.bits), nil
}

// tensorSize is how many bytes a tensor of type t and dimensions dims
// takes, with gguf.Type's sizes, or why it cannot be written.
func tensorSize(dims []int64, t gguf.Type) (int64, error) {
	if !t.Known() {
		return 0, fmt.Errorf("type id %d, which GGUF does not define", uint32(t))
	}
	row, rows := int64(1), uint64(1)
	for i, d := range dims {
		if d < 0 {
			return 0, fmt.Errorf("dimensions %v: %d is negative", dims, d)
		}
		if i == 0 {
			row = d
			continue
		}
		hi, lo := bits.Mul64(rows, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, fmt.Errorf("dimensions %v hold more rows than an int64 counts", dims)
		}
		rows = lo
	}
	rowBytes, ok := t.RowBytes(row)
	if !ok {
		if row%int64(t.BlockSize()) != 0 {
			return 0, fmt.Errorf("a row of %d numbers is not a whole number of %s blocks of %d", row, t, t.BlockSize())
		}
		return 0, fmt.Errorf("dimensions %v: a row of %s takes more bytes than an int64 counts", dims, t)
	}
	hi, lo := bits.Mul64(uint64(rowBytes), rows)
	if hi != 0 || lo > math.MaxInt64 {
		return 0, fmt.Errorf("dimensions %v of %s take more bytes than an int64 counts", dims, t)
	}
	return int64(lo), nil
}
