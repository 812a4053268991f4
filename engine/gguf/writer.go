package gguf

import (
	"encoding/binary"
	"fmt"
	"io"
)

// TensorData is a tensor for Write: its name, dimensions in ggml's order
// (Dims[0] is the length of a row), type, and bytes, exactly as many as
// the type and dimensions take.
type TensorData struct {
	Name string
	Dims []int64
	Type Type
	Data []byte
}

// Write writes a GGUF file of the given version (2 or 3) to w: the
// metadata in the order given, then the tensor infos, then each tensor's
// data, in order, each starting on a multiple of the alignment and padded
// with zeros to the next. The alignment is general.alignment's if meta
// has it (a uint32 power of two), else 32.
//
// Write checks what it writes as Parse checks what it reads (types,
// sizes, unique keys and names), and writes nothing if anything is wrong.
func Write(w io.Writer, version uint32, meta []KeyValue, tensors []TensorData) error {
	if version != 2 && version != 3 {
		return fmt.Errorf("gguf: write: version %d, want 2 or 3", version)
	}
	align := int64(defaultAlignment)
	keys := make(map[string]bool, len(meta))
	for _, kv := range meta {
		if keys[kv.Key] {
			return fmt.Errorf("gguf: write: key %q appears twice", kv.Key)
		}
		keys[kv.Key] = true
		if err := checkValue(kv.Value); err != nil {
			return fmt.Errorf("gguf: write: key %q: %v", kv.Key, err)
		}
		if kv.Key == alignmentKey {
			a, err := checkAlignment(kv.Value)
			if err != nil {
				return fmt.Errorf("gguf: write: %v", err)
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
			return fmt.Errorf("gguf: write: tensor %q appears twice", t.Name)
		}
		names[t.Name] = true
		if len(t.Dims) > maxDims {
			return fmt.Errorf("gguf: write: tensor %q has %d dimensions, at most %d", t.Name, len(t.Dims), maxDims)
		}
		n, err := tensorSize(t.Dims, t.Type)
		if err != nil {
			return fmt.Errorf("gguf: write: tensor %q: %v", t.Name, err)
		}
		if int64(len(t.Data)) != n {
			return fmt.Errorf("gguf: write: tensor %q: %d bytes of data, want %d for %s %v", t.Name, len(t.Data), n, t.Type, t.Dims)
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
		return fmt.Errorf("gguf: write: %w", err)
	}
	if err := writeZeros(w, alignUp(int64(len(b)), align)-int64(len(b))); err != nil {
		return fmt.Errorf("gguf: write: %w", err)
	}
	for _, t := range tensors {
		_, err := w.Write(t.Data)
		if err == nil {
			err = writeZeros(w, alignUp(int64(len(t.Data)), align)-int64(len(t.Data)))
		}
		if err != nil {
			return fmt.Errorf("gguf: write: tensor %q: %w", t.Name, err)
		}
	}
	return nil
}

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
// Parse reads.
func checkValue(v Value) error {
	if v.bad != "" {
		return fmt.Errorf("%s", v.bad)
	}
	if d := nesting(v); d > maxNesting {
		return fmt.Errorf("arrays nested %d deep, more than %d", d, maxNesting)
	}
	return nil
}

// nesting is how many arrays deep v goes: 0 for a number or a string.
func nesting(v Value) int {
	if v.typ != Array {
		return 0
	}
	d := 0
	if v.elem == Array {
		v.each(func(e Value) bool { d = max(d, nesting(e)); return true })
	}
	return 1 + d
}
