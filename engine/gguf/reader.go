package gguf

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// A File is a parsed GGUF file: its metadata and tensor infos in file
// order, and its bytes, which the tensors' Data slices point into.
//
// A File is safe for concurrent use by readers. Close releases the file's
// bytes; the metadata stays readable after it, the tensors' Data does not.
type File struct {
	Version   uint32       // 2 or 3
	Alignment int64        // of every tensor's data: general.alignment, or 32
	Metadata  []KeyValue   // in file order
	Tensors   []TensorInfo // in file order

	data      []byte // the whole file, mapped or read
	mapped    bool   // data is a mapping that Close must undo
	dataStart int64  // where the tensor data section starts
	path      string // for messages; "" for Parse
	keys      map[string]int
	names     map[string]int
}

// A TensorInfo describes one tensor of a File.
type TensorInfo struct {
	Name string
	// Dims are in ggml's order: Dims[0] is the length of a row, the
	// fastest-varying dimension. A tensor has at most 4.
	Dims   []int64
	Type   Type
	Offset int64 // of its data, from the start of the data section
	// Data is the tensor's bytes: a slice of the file's, not a copy, valid
	// until the File is closed. Do not write to it (a mapped file is
	// read-only: a write faults).
	Data []byte
}

// Elements is the number of numbers in the tensor, the product of its
// dimensions (1 for a tensor with none, a scalar).
func (t *TensorInfo) Elements() int64 {
	n := int64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// A FormatError reports a file that is not valid GGUF: what is wrong and
// the byte offset where the faulty field starts.
type FormatError struct {
	Path   string // the file's path; "" for Parse
	Offset int64  // of the faulty field
	Msg    string
}

func (e *FormatError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("gguf: %s (at byte %d)", e.Msg, e.Offset)
	}
	return fmt.Sprintf("gguf: %s: %s (at byte %d)", e.Path, e.Msg, e.Offset)
}

// Limits of the format, as ggml sets them.
const (
	maxDims          = 4  // GGML_MAX_DIMS
	defaultAlignment = 32 // GGUF_DEFAULT_ALIGNMENT
	headerSize       = 24 // magic, version, tensor count, key count
	// A tensor info takes at least its name's length, n_dims, type and
	// offset; a key/value at least its key's length, its type and a
	// 1-byte value.
	minTensorInfo = 8 + 4 + 4 + 8
	minKeyValue   = 8 + 4 + 1
	// maxNesting bounds how deep arrays of arrays go, so that a file
	// cannot drive the parser's recursion as deep as it likes. No model
	// uses more than one level.
	maxNesting = 32
)

// The magic numbers of GGUF and of the formats before it, as their first
// four bytes spell them.
const magic = "GGUF"

var oldMagics = map[string]string{"lmgg": "ggml", "fmgg": "ggmf", "tjgg": "ggjt"}

// Parse parses a GGUF file held in memory. The tensors' Data slices point
// into data, which must not change while they are in use.
func Parse(data []byte) (*File, error) {
	return parse(data, "")
}

// parser reads a file's header. Every read checks the bytes left first,
// and every count is checked against them before anything is allocated
// for it, so that a header claims no more memory than the file's size
// accounts for.
type parser struct {
	b      []byte
	off    int
	path   string
	keyAt  []int // where each key starts, for messages
	infoAt []int // where each tensor info starts
}

func (p *parser) errorf(at int, format string, args ...any) *FormatError {
	return &FormatError{Path: p.path, Offset: int64(at), Msg: fmt.Sprintf(format, args...)}
}

// Messages are made only on the way out of an error: a primitive says what
// is wrong with the field it reads, and each caller going back up puts
// in front of it where that field is ("key \"a\": element 3: ...").
// Nothing is allocated for that while reading a valid file.

// wrap puts where the faulty field is in front of err's message.
func wrap(err error, format string, args ...any) error {
	if fe, ok := err.(*FormatError); ok {
		fe.Msg = fmt.Sprintf(format, args...) + ": " + fe.Msg
	}
	return err
}

// need checks that n more bytes are left.
func (p *parser) need(n uint64) error {
	if n > uint64(len(p.b)-p.off) {
		return p.errorf(p.off, "%d bytes needed, and the file ends at byte %d", n, len(p.b))
	}
	return nil
}

func (p *parser) u32() (uint32, error) {
	if err := p.need(4); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint32(p.b[p.off:])
	p.off += 4
	return v, nil
}

func (p *parser) u64() (uint64, error) {
	if err := p.need(8); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint64(p.b[p.off:])
	p.off += 8
	return v, nil
}

// count reads the count called noun of things of at least min bytes
// each, and checks that the bytes left could hold that many (and so that
// it fits an int).
func (p *parser) count(min int, noun string) (int, error) {
	at := p.off
	n, err := p.u64()
	if err != nil {
		return 0, wrap(err, "%s", noun)
	}
	if room := uint64(len(p.b)-p.off) / uint64(min); n > room {
		return 0, p.errorf(at, "%s %d: the file ends at byte %d, room for at most %d", noun, n, len(p.b), room)
	}
	return int(n), nil
}

// strLen reads a string's length and checks that its bytes are there.
func (p *parser) strLen() (int, error) {
	at := p.off
	n, err := p.u64()
	if err != nil {
		return 0, err
	}
	if n > uint64(len(p.b)-p.off) {
		return 0, p.errorf(at, "a string of %d bytes, and the file ends at byte %d", n, len(p.b))
	}
	return int(n), nil
}

// str reads a string, and copies it.
func (p *parser) str() (string, error) {
	n, err := p.strLen()
	if err != nil {
		return "", err
	}
	s := string(p.b[p.off : p.off+n])
	p.off += n
	return s, nil
}

// valueType reads a value type and checks that GGUF defines it.
func (p *parser) valueType() (ValueType, error) {
	at := p.off
	t, err := p.u32()
	if err != nil {
		return 0, err
	}
	if !ValueType(t).valid() {
		return 0, p.errorf(at, "value type %d, which GGUF does not define", t)
	}
	return ValueType(t), nil
}

// value reads a value of type t. A string or an array is copied whole, in
// one allocation; an array's elements are checked here, and decoded only
// when asked for.
func (p *parser) value(t ValueType) (Value, error) {
	start := p.off
	if err := p.skip(t, 0); err != nil {
		return Value{}, err
	}
	switch t {
	case String:
		return Value{typ: String, s: string(p.b[start+8 : p.off])}, nil
	case Array:
		elem := ValueType(binary.LittleEndian.Uint32(p.b[start:]))
		n := binary.LittleEndian.Uint64(p.b[start+4:])
		return Value{typ: Array, elem: elem, n: int(n), s: string(p.b[start+12 : p.off])}, nil
	}
	return Value{typ: t, bits: decodeScalar(t, string(p.b[start:p.off]))}, nil
}

// skip checks the value of type t at the current offset and moves past
// it, allocating nothing. depth is how many arrays enclose it.
func (p *parser) skip(t ValueType, depth int) error {
	at := p.off
	switch t {
	case String:
		n, err := p.strLen()
		if err != nil {
			return err
		}
		p.off += n
		return nil
	case Array:
		if depth == maxNesting {
			return p.errorf(at, "arrays nested more than %d deep", maxNesting)
		}
		elem, err := p.valueType()
		if err != nil {
			return wrap(err, "array element type")
		}
		n, err := p.count(elem.minSize(), "length")
		if err != nil {
			return wrap(err, "array of %s", elem.plural())
		}
		if w := elem.size(); w > 0 && elem != Bool {
			p.off += n * w // count checked that the bytes are there
			return nil
		}
		if elem == String {
			// Vocabularies and merges are most of a model's header: walk
			// them in a tight loop, and leave a bad string to the
			// general case below to describe.
			for i := range n {
				if rest := len(p.b) - p.off; rest >= 8 {
					if l := binary.LittleEndian.Uint64(p.b[p.off:]); l <= uint64(rest-8) {
						p.off += 8 + int(l)
						continue
					}
				}
				return wrap(p.skip(String, depth+1), "element %d", i)
			}
			return nil
		}
		for i := range n {
			if err := p.skip(elem, depth+1); err != nil {
				return wrap(err, "element %d", i)
			}
		}
		return nil
	case Bool:
		if err := p.need(1); err != nil {
			return err
		}
		if b := p.b[p.off]; b > 1 {
			return p.errorf(at, "bool byte is %d, want 0 or 1", b)
		}
		p.off++
		return nil
	}
	if err := p.need(uint64(t.size())); err != nil {
		return err
	}
	p.off += t.size()
	return nil
}

func parse(data []byte, path string) (*File, error) {
	p := &parser{b: data, path: path}
	f := &File{data: data, path: path}
	if err := p.header(f); err != nil {
		return nil, err
	}
	return f, nil
}

func (p *parser) header(f *File) error {
	if len(p.b) < len(magic) && string(p.b) == magic[:len(p.b)] {
		return p.errorf(0, "the file ends at byte %d, inside the magic %q", len(p.b), magic)
	}
	if got := p.b[:min(len(p.b), len(magic))]; string(got) != magic {
		if old, ok := oldMagics[string(got)]; ok {
			return p.errorf(0, "not a GGUF file: it starts with %q, the magic of %s, a format from before GGUF", got, old)
		}
		return p.errorf(0, "not a GGUF file: it starts with %q, not %q", got, magic)
	}
	p.off = len(magic)
	version, err := p.u32()
	if err != nil {
		return wrap(err, "version")
	}
	switch {
	case version == 2 || version == 3:
	case version == 1:
		return p.errorf(4, "GGUF version 1 is not supported, only 2 and 3: convert the model again with a newer llama.cpp")
	case version&0xffff == 0 && bits.ReverseBytes32(version) >= 1 && bits.ReverseBytes32(version) <= 3:
		return p.errorf(4, "the file is big-endian (its version, %d, is stored with its bytes reversed); only little-endian GGUF files are read", bits.ReverseBytes32(version))
	default:
		return p.errorf(4, "unknown GGUF version %d (0x%08x), want 2 or 3", version, version)
	}
	f.Version = version
	nTensors, err := p.count(minTensorInfo, "tensor count")
	if err != nil {
		return err
	}
	nKeys, err := p.count(minKeyValue, "key count")
	if err != nil {
		return err
	}
	if least := int64(nTensors)*minTensorInfo + int64(nKeys)*minKeyValue; least > int64(len(p.b)-p.off) {
		return p.errorf(8, "tensor count %d and key count %d need at least %d bytes, and the file ends at byte %d",
			nTensors, nKeys, least, len(p.b))
	}
	if err := p.metadata(f, nKeys); err != nil {
		return err
	}
	if i, ok := f.keys[alignmentKey]; ok {
		a, err := checkAlignment(f.Metadata[i].Value)
		if err != nil {
			return p.errorf(p.keyAt[i], "%v", err)
		}
		f.Alignment = a
	} else {
		f.Alignment = defaultAlignment
	}
	if err := p.tensorInfos(f, nTensors); err != nil {
		return err
	}
	f.dataStart = alignUp(int64(p.off), f.Alignment)
	return p.tensorData(f)
}

func (p *parser) metadata(f *File, n int) error {
	f.Metadata = make([]KeyValue, 0, n)
	f.keys = make(map[string]int, n)
	p.keyAt = make([]int, 0, n)
	for i := range n {
		start := p.off
		key, err := p.str()
		if err != nil {
			return wrap(err, "key %d of %d", i, n)
		}
		if j, dup := f.keys[key]; dup {
			return p.errorf(start, "key %q appears twice, at bytes %d and %d", key, p.keyAt[j], start)
		}
		t, err := p.valueType()
		if err != nil {
			return wrap(err, "key %q", key)
		}
		v, err := p.value(t)
		if err != nil {
			return wrap(err, "key %q", key)
		}
		f.keys[key] = len(f.Metadata)
		f.Metadata = append(f.Metadata, KeyValue{key, v})
		p.keyAt = append(p.keyAt, start)
	}
	return nil
}

// alignmentKey is the key that sets the alignment of the tensors' data.
// It must be a uint32 power of two, as llama.cpp and the Python gguf
// package require.
const alignmentKey = "general.alignment"

// checkAlignment returns the alignment a general.alignment value sets.
func checkAlignment(v Value) (int64, error) {
	if v.typ != Uint32 {
		return 0, fmt.Errorf("%s is %s, want a uint32", alignmentKey, v.describe())
	}
	if v.bits == 0 || v.bits&(v.bits-1) != 0 {
		return 0, fmt.Errorf("%s is %d, want a power of two", alignmentKey, v.bits)
	}
	return int64(v.bits), nil
}

func alignUp(n, a int64) int64 { return (n + a - 1) &^ (a - 1) }

func (p *parser) tensorInfos(f *File, n int) error {
	f.Tensors = make([]TensorInfo, n)
	f.names = make(map[string]int, n)
	p.infoAt = make([]int, n)
	for i := range f.Tensors {
		t := &f.Tensors[i]
		start := p.off
		p.infoAt[i] = start
		name, err := p.str()
		if err != nil {
			return wrap(err, "tensor %d of %d: name", i, n)
		}
		if j, dup := f.names[name]; dup {
			return p.errorf(start, "tensor %q appears twice, as tensors %d and %d", name, j, i)
		}
		f.names[name] = i
		t.Name = name
		at := p.off
		nDims, err := p.u32()
		if err != nil {
			return wrap(err, "tensor %q", name)
		}
		if nDims > maxDims {
			return p.errorf(at, "tensor %q has %d dimensions, at most %d", name, nDims, maxDims)
		}
		if err := p.need(uint64(nDims) * 8); err != nil {
			return wrap(err, "tensor %q", name)
		}
		t.Dims = make([]int64, nDims)
		for d := range t.Dims {
			v := binary.LittleEndian.Uint64(p.b[p.off:])
			if v > math.MaxInt64 {
				return p.errorf(p.off, "tensor %q: dimension %d is %d, more than an int64 holds", name, d, v)
			}
			t.Dims[d] = int64(v)
			p.off += 8
		}
		at = p.off
		typ, err := p.u32()
		if err != nil {
			return wrap(err, "tensor %q", name)
		}
		t.Type = Type(typ)
		if _, err := tensorSize(t.Dims, t.Type); err != nil {
			return p.errorf(at, "tensor %q: %v", name, err)
		}
		at = p.off
		off, err := p.u64()
		if err != nil {
			return wrap(err, "tensor %q", name)
		}
		if off > math.MaxInt64 {
			return p.errorf(at, "tensor %q: data offset %d is more than an int64 holds", name, off)
		}
		if int64(off)%f.Alignment != 0 {
			return p.errorf(at, "tensor %q: data offset %d is not a multiple of the alignment, %d", name, off, f.Alignment)
		}
		t.Offset = int64(off)
	}
	return nil
}

// tensorSize is the size in bytes of a tensor's data, and why there is
// none: a type GGUF does not define, rows that are not whole blocks, more
// numbers or bytes than an int64 counts.
func tensorSize(dims []int64, t Type) (int64, error) {
	if !t.Known() {
		return 0, fmt.Errorf("type id %d, which GGUF does not define", uint32(t))
	}
	// Multiply the dimensions that are not 0, so that a product that
	// overflows is refused whatever the order of the dimensions.
	n := uint64(1)
	for _, d := range dims {
		if d < 0 {
			return 0, fmt.Errorf("dimensions %v: %d is negative", dims, d)
		}
		if d == 0 {
			continue
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, fmt.Errorf("dimensions %v hold more numbers than an int64 counts", dims)
		}
		n = lo
	}
	row, rows := int64(1), int64(1)
	if len(dims) > 0 {
		row = dims[0]
		for _, d := range dims[1:] {
			rows *= d // no overflow: a factor of n, or 0
		}
	}
	rowBytes, ok := t.RowBytes(row)
	if !ok {
		if row%int64(t.BlockSize()) != 0 {
			return 0, fmt.Errorf("a row of %d numbers is not a whole number of %s blocks of %d", row, t, t.BlockSize())
		}
		return 0, fmt.Errorf("dimensions %v: a row of %s takes more bytes than an int64 counts", dims, t)
	}
	hi, lo := bits.Mul64(uint64(rowBytes), uint64(rows))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, fmt.Errorf("dimensions %v of %s take more bytes than an int64 counts", dims, t)
	}
	return int64(lo), nil
}

// tensorData points each tensor's Data into the file, after checking that
// it lies inside it and overlaps no other.
func (p *parser) tensorData(f *File) error {
	size := int64(len(p.b))
	for i := range f.Tensors {
		t := &f.Tensors[i]
		n, _ := tensorSize(t.Dims, t.Type) // checked by tensorInfos
		if f.dataStart > size || t.Offset > size-f.dataStart || n > size-f.dataStart-t.Offset {
			return p.errorf(p.infoAt[i], "tensor %q: %d bytes at data offset %d, but the data section starts at byte %d and the file ends at byte %d",
				t.Name, n, t.Offset, f.dataStart, size)
		}
		start := f.dataStart + t.Offset
		t.Data = p.b[start : start+n : start+n]
	}
	// Sorted by offset, each tensor with data must end before the next one
	// with data starts.
	order := make([]int32, 0, len(f.Tensors))
	for i := range f.Tensors {
		if len(f.Tensors[i].Data) > 0 {
			order = append(order, int32(i))
		}
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(f.Tensors[a].Offset, f.Tensors[b].Offset) })
	for k := 1; k < len(order); k++ {
		a, b := &f.Tensors[order[k-1]], &f.Tensors[order[k]]
		if end := a.Offset + int64(len(a.Data)); b.Offset < end {
			return p.errorf(p.infoAt[order[k]], "tensors %q (data offsets %d to %d) and %q (%d to %d) overlap",
				a.Name, a.Offset, end, b.Name, b.Offset, b.Offset+int64(len(b.Data)))
		}
	}
	return nil
}
