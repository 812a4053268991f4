package bpe

// This file reads a Spec from a GGUF file for the tests. It is a stand-in
// for the engine's GGUF reader (package engine/gguf), which this package
// must not depend on: once that reader is available, specFromGGUF should
// be rewritten with gguf.Open and the File accessors, and everything below
// it deleted. It reads only the key/value header, keeps only the
// tokenizer.ggml.* keys, and skips everything else.

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// specFromGGUF returns the tokenizer Spec of a GGUF file, with llama.cpp's
// defaults for the keys the file leaves out.
func specFromGGUF(path string) (Spec, error) {
	kv, err := readTokenizerKeys(path)
	if err != nil {
		return Spec{}, err
	}
	str := func(key string) string { s, _ := kv[key].(string); return s }
	model, pre := str("tokenizer.ggml.model"), str("tokenizer.ggml.pre")
	s := Defaults(model, pre)
	var ok bool
	if s.Tokens, ok = kv["tokenizer.ggml.tokens"].([]string); !ok {
		return Spec{}, fmt.Errorf("%s: no tokenizer.ggml.tokens string array", path)
	}
	s.Merges, _ = kv["tokenizer.ggml.merges"].([]string)
	if v, ok := kv["tokenizer.ggml.token_type"].([]int64); ok {
		s.Types = make([]int32, len(v))
		for i, x := range v {
			s.Types[i] = int32(x)
		}
	}
	if v, ok := kv["tokenizer.ggml.scores"].([]float64); ok {
		s.Scores = make([]float32, len(v))
		for i, x := range v {
			s.Scores[i] = float32(x)
		}
	}
	for key, id := range map[string]*int{
		"bos_token_id": &s.BOS, "eos_token_id": &s.EOS, "unknown_token_id": &s.UNK,
		"padding_token_id": &s.PAD, "eot_token_id": &s.EOT, "eom_token_id": &s.EOM,
	} {
		if v, ok := kv["tokenizer.ggml."+key].(int64); ok {
			*id = int(v)
		}
	}
	for key, b := range map[string]*bool{
		"add_bos_token": &s.AddBOS, "add_eos_token": &s.AddEOS, "add_space_prefix": &s.AddSpacePrefix,
	} {
		if v, ok := kv["tokenizer.ggml."+key].(bool); ok {
			*b = v
		}
	}
	return s, nil
}

// readTokenizerKeys returns the tokenizer.ggml.* values of a GGUF file:
// integers as int64, floats as float64, and arrays as []string, []int64,
// []float64 or []bool.
func readTokenizerKeys(path string) (map[string]any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &ggufReader{r: bufio.NewReaderSize(f, 1<<20)}
	var head struct {
		Magic   [4]byte
		Version uint32
		Tensors uint64
		KVs     uint64
	}
	r.read(&head)
	if r.err == nil && (string(head.Magic[:]) != "GGUF" || head.Version < 2 || head.Version > 3) {
		return nil, fmt.Errorf("%s: not a GGUF v2/v3 file (magic %q, version %d)", path, head.Magic[:], head.Version)
	}
	kv := map[string]any{}
	for i := uint64(0); i < head.KVs && r.err == nil; i++ {
		key := r.string()
		typ := r.u32()
		if v := r.value(typ); strings.HasPrefix(key, "tokenizer.ggml.") {
			kv[key] = v
		}
	}
	if r.err != nil {
		return nil, fmt.Errorf("%s: %w", path, r.err)
	}
	return kv, nil
}

// ggufReader reads little-endian GGUF values, keeping the first error.
type ggufReader struct {
	r   *bufio.Reader
	err error
}

const (
	maxGGUFString = 1 << 24
	maxGGUFArray  = 1 << 24
)

func (g *ggufReader) read(v any) {
	if g.err == nil {
		g.err = binary.Read(g.r, binary.LittleEndian, v)
		if errors.Is(g.err, io.EOF) {
			g.err = io.ErrUnexpectedEOF
		}
	}
}

func (g *ggufReader) u32() uint32 { var v uint32; g.read(&v); return v }
func (g *ggufReader) u64() uint64 { var v uint64; g.read(&v); return v }

func (g *ggufReader) string() string {
	n := g.u64()
	if g.err != nil {
		return ""
	}
	if n > maxGGUFString {
		g.err = fmt.Errorf("string of %d bytes", n)
		return ""
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(g.r, b); err != nil {
		g.err = io.ErrUnexpectedEOF
	}
	return string(b)
}

// value reads a value of GGUF type typ.
func (g *ggufReader) value(typ uint32) any {
	const (
		tU8, tI8, tU16, tI16, tU32, tI32, tF32, tBool, tString, tArray, tU64, tI64, tF64 = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
	)
	switch typ {
	case tU8:
		var v uint8
		g.read(&v)
		return int64(v)
	case tI8:
		var v int8
		g.read(&v)
		return int64(v)
	case tU16:
		var v uint16
		g.read(&v)
		return int64(v)
	case tI16:
		var v int16
		g.read(&v)
		return int64(v)
	case tU32:
		return int64(g.u32())
	case tI32:
		return int64(int32(g.u32()))
	case tF32:
		return float64(math.Float32frombits(g.u32()))
	case tBool:
		var v uint8
		g.read(&v)
		return v != 0
	case tString:
		return g.string()
	case tU64:
		return int64(g.u64())
	case tI64:
		return int64(g.u64())
	case tF64:
		return math.Float64frombits(g.u64())
	case tArray:
		elem, n := g.u32(), g.u64()
		if g.err != nil {
			return nil
		}
		if n > maxGGUFArray || elem == tArray {
			g.err = fmt.Errorf("array of %d elements of type %d", n, elem)
			return nil
		}
		var strs []string
		var ints []int64
		var floats []float64
		var bools []bool
		for i := uint64(0); i < n && g.err == nil; i++ {
			switch v := g.value(elem).(type) {
			case string:
				strs = append(strs, v)
			case int64:
				ints = append(ints, v)
			case float64:
				floats = append(floats, v)
			case bool:
				bools = append(bools, v)
			}
		}
		switch elem {
		case tString:
			return strs
		case tF32, tF64:
			return floats
		case tBool:
			return bools
		}
		return ints
	}
	if g.err == nil {
		g.err = fmt.Errorf("unknown GGUF value type %d", typ)
	}
	return nil
}
