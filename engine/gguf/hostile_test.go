package gguf_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	. "github.com/tokenbytoken/course/engine/gguf"
	"github.com/tokenbytoken/course/engine/internal/ggufwrite"
)

// tensorFile is a version-3 file with the given tensor infos (already
// encoded, n of them) after the given keys, its data section padded to
// 32 and holding size bytes.
func tensorFile(n, nKeys uint64, keys, infos raw, size int) raw {
	return append(header(n, nKeys).append(keys).append(infos).pad(32), make([]byte, size)...)
}

func (r raw) append(s raw) raw { return append(r, s...) }

// nested encodes depth arrays, one inside the other, around an empty
// array of uint8, as a key's value.
func nested(depth int) raw {
	r := raw{}.u32(uint32(Array))
	for range depth - 1 {
		r = r.u32(uint32(Array)).u64(1)
	}
	return r.u32(uint32(Uint8)).u64(0)
}

var w4 = []uint64{4} // dimensions of a 4-number tensor

// hostile holds one file for each kind of bad input, with what its error
// must say.
var hostile = []struct {
	name string
	file raw
	want string
}{
	{"empty", raw{}, `the file ends at byte 0, inside the magic "GGUF"`},
	{"short magic", raw("GG"), `the file ends at byte 2, inside the magic "GGUF"`},
	{"not a magic", raw("GX"), `not a GGUF file: it starts with "GX", not "GGUF"`},
	{"wrong magic", raw("GGML").u32(3).u64(0).u64(0), `not a GGUF file: it starts with "GGML", not "GGUF"`},
	{"ggjt", raw("tjgg").u32(3).u64(0).u64(0), `it starts with "tjgg", the magic of ggjt, a format from before GGUF`},
	{"version 1", raw("GGUF").u32(1).u64(0).u64(0), "GGUF version 1 is not supported, only 2 and 3"},
	{"version 4", raw("GGUF").u32(4).u64(0).u64(0), "unknown GGUF version 4 (0x00000004), want 2 or 3"},
	{"version 0", raw("GGUF").u32(0).u64(0).u64(0), "unknown GGUF version 0"},
	{"big-endian", raw("GGUF").u8(0).u8(0).u8(0).u8(3).u64(0).u64(0), "the file is big-endian (its version, 3, is stored with its bytes reversed)"},
	{"tensor count", header(1<<60, 0), "tensor count 1152921504606846976: the file ends at byte 24, room for at most 0"},
	{"key count", header(0, 1<<60).u64(0), "key count 1152921504606846976: the file ends at byte 32, room for at most 0"},
	{"both counts", header(1, 1).append(make(raw, 30)), "tensor count 1 and key count 1 need at least 37 bytes, and the file ends at byte 54"},
	{"key length", header(0, 1).u64(1 << 62).u32(0).u8(0), "key 0 of 1: a string of 4611686018427387904 bytes, and the file ends at byte 37 (at byte 24)"},
	{"string length", header(0, 1).str("s").u32(uint32(String)).u64(1 << 62), `key "s": a string of 4611686018427387904 bytes, and the file ends at byte 45 (at byte 37)`},
	{"array length", header(0, 1).str("a").u32(uint32(Array)).u32(uint32(Uint8)).u64(1 << 40).u64(0),
		`key "a": array of uint8: length 1099511627776: the file ends at byte 57, room for at most 8`},
	{"strings length", header(0, 1).str("a").u32(uint32(Array)).u32(uint32(String)).u64(1 << 40).u64(0),
		`key "a": array of strings: length 1099511627776: the file ends at byte 57, room for at most 1`},
	{"arrays length", header(0, 1).str("a").u32(uint32(Array)).u32(uint32(Array)).u64(1 << 40).u64(0),
		`key "a": array of arrays: length 1099511627776: the file ends at byte 57, room for at most 0`},
	{"string in an array", header(0, 1).str("a").u32(uint32(Array)).u32(uint32(String)).u64(2).str("x").u64(1000),
		`key "a": element 1: a string of 1000 bytes, and the file ends at byte 66 (at byte 58)`},
	{"value type", header(0, 1).str("k").u32(13).u8(0), `key "k": value type 13, which GGUF does not define`},
	{"element type", header(0, 1).str("k").u32(uint32(Array)).u32(99).u64(0), `key "k": array element type: value type 99, which GGUF does not define`},
	{"bool", header(0, 1).str("b").u32(uint32(Bool)).u8(2), `key "b": bool byte is 2, want 0 or 1`},
	{"bool in an array", header(0, 1).str("b").u32(uint32(Array)).u32(uint32(Bool)).u64(2).u8(1).u8(255),
		`key "b": element 1: bool byte is 255, want 0 or 1`},
	{"nesting", header(0, 1).str("n").append(nested(MaxNesting + 1)), `key "n": element 0: element 0:`},
	{"nesting", header(0, 1).str("n").append(nested(MaxNesting + 1)), `arrays nested more than 32 deep`},
	{"duplicate key", header(0, 2).str("a").u32(uint32(Uint8)).u8(1).str("a").u32(uint32(Uint8)).u8(2),
		`key "a" appears twice, at bytes 24 and 38 (at byte 38)`},
	{"alignment type", header(0, 1).str("general.alignment").u32(uint32(Uint64)).u64(64), "general.alignment is a uint64, want a uint32 (at byte 24)"},
	{"alignment 0", header(0, 1).str("general.alignment").u32(uint32(Uint32)).u32(0), "general.alignment is 0, want a power of two"},
	{"alignment 48", header(0, 1).str("general.alignment").u32(uint32(Uint32)).u32(48), "general.alignment is 48, want a power of two"},
	{"n_dims", tensorFile(1, 0, nil, raw{}.str("w").u32(1000), 0), `tensor "w" has 1000 dimensions, at most 4`},
	{"dimension", tensorFile(1, 0, nil, raw{}.info("w", []uint64{4, 1 << 63}, F32, 0), 16),
		`tensor "w": dimension 1 is 9223372036854775808, more than an int64 holds`},
	{"numbers", tensorFile(1, 0, nil, raw{}.info("w", []uint64{1 << 32, 1 << 32}, F32, 0), 0),
		`tensor "w": dimensions [4294967296 4294967296] hold more numbers than an int64 counts`},
	{"bytes", tensorFile(1, 0, nil, raw{}.info("w", []uint64{1 << 40, 1 << 22}, F64, 0), 0),
		`tensor "w": dimensions [1099511627776 4194304] of F64 take more bytes than an int64 counts`},
	{"row bytes", tensorFile(1, 0, nil, raw{}.info("w", []uint64{1 << 61}, F64, 0), 0),
		`tensor "w": dimensions [2305843009213693952]: a row of F64 takes more bytes than an int64 counts`},
	{"type", tensorFile(1, 0, nil, raw{}.info("w", w4, Type(99), 0), 16), `tensor "w": type id 99, which GGUF does not define`},
	{"retired type", tensorFile(1, 0, nil, raw{}.info("w", []uint64{32}, Type(4), 0), 20), `tensor "w": type id 4, which GGUF does not define`},
	{"blocks", tensorFile(1, 0, nil, raw{}.info("w", []uint64{33, 2}, Q4_1, 0), 100),
		`tensor "w": a row of 33 numbers is not a whole number of Q4_1 blocks of 32`},
	{"misaligned", tensorFile(1, 0, nil, raw{}.info("w", w4, F32, 16), 32), `tensor "w": data offset 16 is not a multiple of the alignment, 32`},
	{"misaligned 64", tensorFile(1, 1, raw{}.str("general.alignment").u32(uint32(Uint32)).u32(64), raw{}.info("w", w4, F32, 32), 64),
		`tensor "w": data offset 32 is not a multiple of the alignment, 64`},
	{"offset", tensorFile(1, 0, nil, raw{}.info("w", w4, F32, 1<<63), 32), `tensor "w": data offset 9223372036854775808 is more than an int64 holds`},
	{"past the end", tensorFile(1, 0, nil, raw{}.info("w", []uint64{16}, F32, 32), 64),
		`tensor "w": 64 bytes at data offset 32, but the data section starts at byte 64 and the file ends at byte 128 (at byte 24)`},
	{"far past the end", tensorFile(1, 0, nil, raw{}.info("w", w4, F32, 1<<62), 16),
		`tensor "w": 16 bytes at data offset 4611686018427387904, but the data section starts at byte 64 and the file ends at byte 80`},
	{"no data section", header(1, 0).info("w", w4, F32, 0), `tensor "w": 16 bytes at data offset 0, but the data section starts at byte 64 and the file ends at byte 57`},
	{"overlap", tensorFile(2, 0, nil, raw{}.info("a", []uint64{16}, F32, 0).info("b", []uint64{16}, F32, 32), 96),
		`tensors "a" (data offsets 0 to 64) and "b" (32 to 96) overlap`},
	{"same offset", tensorFile(2, 0, nil, raw{}.info("a", w4, F32, 32).info("b", w4, F32, 32), 64),
		`tensors "a" (data offsets 32 to 48) and "b" (32 to 48) overlap`},
	{"duplicate tensor", tensorFile(2, 0, nil, raw{}.info("w", w4, F32, 0).info("w", w4, F32, 32), 64),
		`tensor "w" appears twice, as tensors 0 and 1`},
}

// Each kind of bad input gets its own error, which says what is wrong with
// which value; none panics.
func TestHostile(t *testing.T) {
	for _, c := range hostile {
		f, err := Parse(c.file)
		var fe *FormatError
		if f != nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
			continue
		}
		if fe.Offset < 0 || fe.Offset > int64(len(c.file)) {
			t.Errorf("%s: error at byte %d of %d", c.name, fe.Offset, len(c.file))
		}
	}
}

// A file cut short at any byte is refused, up to the end of its last
// tensor's data: only the padding after it may go.
func TestTruncated(t *testing.T) {
	for _, version := range []uint32{2, 3} {
		b := encode(t, version, everyValue(), everyTensor())
		f, err := Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		end := f.DataOffset()
		for _, t := range f.Tensors {
			end = max(end, f.DataOffset()+t.Offset+int64(len(t.Data)))
		}
		for n := range len(b) {
			_, err := Parse(b[:n])
			switch {
			case int64(n) >= end && err != nil:
				t.Errorf("cut to %d bytes, after the last tensor's data: %v", n, err)
			case int64(n) < end && (err == nil || !strings.Contains(err.Error(), "the file ends at byte")):
				t.Fatalf("cut to %d bytes of %d: %v", n, len(b), err)
			}
		}
	}
}

// allocated is how many bytes parse allocates on average.
func allocated(b []byte) uint64 {
	const runs = 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		Parse(b)
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / runs
}

// A header that claims vast numbers of things makes the parser allocate
// nothing for them: what it allocates is bounded by the file's size.
func TestMemoryBoundedByClaims(t *testing.T) {
	for _, c := range []struct {
		name string
		file raw
	}{
		{"2^40 uint8", header(0, 1).str("a").u32(uint32(Array)).u32(uint32(Uint8)).u64(1 << 40).append(make(raw, 64))},
		{"2^40 strings", header(0, 1).str("a").u32(uint32(Array)).u32(uint32(String)).u64(1 << 40).append(make(raw, 64))},
		{"2^40 arrays", header(0, 1).str("a").u32(uint32(Array)).u32(uint32(Array)).u64(1 << 40).append(make(raw, 64))},
		{"2^60 keys", header(0, 1<<60).append(make(raw, 64))},
		{"2^60 tensors", header(1<<60, 0).append(make(raw, 64))},
		{"2^62-byte string", header(0, 1).str("s").u32(uint32(String)).u64(1 << 62).append(make(raw, 64))},
		{"2^62 numbers", tensorFile(1, 0, nil, raw{}.info("w", []uint64{1 << 31, 1 << 31}, F32, 0), 64)},
	} {
		if _, err := Parse(c.file); err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		// The file itself, and a message.
		n := allocated(c.file)
		t.Logf("%s: parsing %d bytes allocated %d", c.name, len(c.file), n)
		if n > 2*uint64(len(c.file))+1024 {
			t.Errorf("%s: parsing %d bytes allocated %d", c.name, len(c.file), n)
		}
	}
}

// What a valid file makes the parser allocate grows with the file's size,
// even for a file of nothing but the smallest possible keys.
func TestMemoryBoundedBySize(t *testing.T) {
	const keys = 20000
	meta := make([]ggufwrite.KeyValue, keys)
	for i := range meta {
		meta[i] = ggufwrite.KeyValue{Key: string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)), Value: ggufwrite.BoolValue(i%2 == 0)}
	}
	small := encode(t, 3, meta, nil)
	// Each key costs its ggufwrite.KeyValue, a map entry, its name and where it
	// starts: several times the bytes it takes in the file.
	n := allocated(small)
	t.Logf("%d keys in %d bytes: parsing allocated %d", keys, len(small), n)
	if n > 12*uint64(len(small)) {
		t.Errorf("%d keys in %d bytes: parsing allocated %d", keys, len(small), n)
	}

	// A vocabulary is one copy, decoded into strings that share it.
	vocab := make([]string, 49152)
	for i := range vocab {
		vocab[i] = strings.Repeat("x", i%13)
	}
	big := encode(t, 3, []ggufwrite.KeyValue{{Key: "tokenizer.ggml.tokens", Value: ggufwrite.StringsValue(vocab)}}, nil)
	n = allocated(big)
	t.Logf("a vocabulary in %d bytes: parsing allocated %d", len(big), n)
	if n > uint64(len(big))+4096 {
		t.Errorf("a vocabulary in %d bytes: parsing allocated %d", len(big), n)
	}
	f, err := Parse(big)
	if err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(10, func() { f.Strings("tokenizer.ggml.tokens") }); a != 1 {
		t.Errorf("Strings made %v allocations, want 1", a)
	}
	got, _ := f.Strings("tokenizer.ggml.tokens")
	for i := range got {
		if got[i] != vocab[i] {
			t.Fatalf("token %d = %q, want %q", i, got[i], vocab[i])
		}
	}
}
