package gguf

import (
	"fmt"
	"math"
)

// Type is a tensor's element type, as GGUF numbers them (ggml's type ids).
// Most are block-quantized: a block of BlockSize numbers is stored in
// BlockBytes bytes.
type Type uint32

// The tensor types GGUF files hold. Ids 4 and 5 (the old Q4_2 and Q4_3)
// and 31 to 33 (repacked Q4_0 variants) are no longer written.
const (
	F32     Type = 0
	F16     Type = 1
	Q4_0    Type = 2
	Q4_1    Type = 3
	Q5_0    Type = 6
	Q5_1    Type = 7
	Q8_0    Type = 8
	Q8_1    Type = 9
	Q2_K    Type = 10
	Q3_K    Type = 11
	Q4_K    Type = 12
	Q5_K    Type = 13
	Q6_K    Type = 14
	Q8_K    Type = 15
	IQ2_XXS Type = 16
	IQ2_XS  Type = 17
	IQ3_XXS Type = 18
	IQ1_S   Type = 19
	IQ4_NL  Type = 20
	IQ3_S   Type = 21
	IQ2_S   Type = 22
	IQ4_XS  Type = 23
	I8      Type = 24
	I16     Type = 25
	I32     Type = 26
	I64     Type = 27
	F64     Type = 28
	IQ1_M   Type = 29
	BF16    Type = 30
	TQ1_0   Type = 34
	TQ2_0   Type = 35
)

// typeInfo is a type's name and block layout.
type typeInfo struct {
	name       string
	blockSize  int // numbers in a block
	blockBytes int // bytes a block takes in the file
}

// types holds every type GGUF defines, so that a file with one the engine
// cannot compute with is still read, and refused by name.
var types = map[Type]typeInfo{
	F32: {"F32", 1, 4}, F16: {"F16", 1, 2}, BF16: {"BF16", 1, 2}, F64: {"F64", 1, 8},
	I8: {"I8", 1, 1}, I16: {"I16", 1, 2}, I32: {"I32", 1, 4}, I64: {"I64", 1, 8},
	Q4_0: {"Q4_0", 32, 18}, Q4_1: {"Q4_1", 32, 20}, Q5_0: {"Q5_0", 32, 22}, Q5_1: {"Q5_1", 32, 24},
	Q8_0: {"Q8_0", 32, 34}, Q8_1: {"Q8_1", 32, 40},
	Q2_K: {"Q2_K", 256, 84}, Q3_K: {"Q3_K", 256, 110}, Q4_K: {"Q4_K", 256, 144},
	Q5_K: {"Q5_K", 256, 176}, Q6_K: {"Q6_K", 256, 210}, Q8_K: {"Q8_K", 256, 292},
	IQ2_XXS: {"IQ2_XXS", 256, 66}, IQ2_XS: {"IQ2_XS", 256, 74}, IQ3_XXS: {"IQ3_XXS", 256, 98},
	IQ1_S: {"IQ1_S", 256, 50}, IQ4_NL: {"IQ4_NL", 32, 18}, IQ3_S: {"IQ3_S", 256, 110},
	IQ2_S: {"IQ2_S", 256, 82}, IQ4_XS: {"IQ4_XS", 256, 136}, IQ1_M: {"IQ1_M", 256, 56},
	TQ1_0: {"TQ1_0", 256, 54}, TQ2_0: {"TQ2_0", 256, 66},
}

// Known reports whether t is a type GGUF defines.
func (t Type) Known() bool { _, ok := types[t]; return ok }

// String is the type's name in llama.cpp's spelling ("Q4_K"), or
// "type 99" for an id GGUF does not define.
func (t Type) String() string {
	if info, ok := types[t]; ok {
		return info.name
	}
	return fmt.Sprintf("type %d", uint32(t))
}

// BlockSize is how many numbers one block of the type holds (1 for the
// plain number types), or 0 for an unknown type.
func (t Type) BlockSize() int { return types[t].blockSize }

// BlockBytes is how many bytes one block of the type takes, or 0 for an
// unknown type.
func (t Type) BlockBytes() int { return types[t].blockBytes }

// RowBytes is the size in bytes of n numbers of the type, and false when n
// is not a whole number of blocks, the type is unknown, or the size is
// more than an int64 counts.
func (t Type) RowBytes(n int64) (int64, bool) {
	info, ok := types[t]
	if !ok || n < 0 || n%int64(info.blockSize) != 0 {
		return 0, false
	}
	blocks := n / int64(info.blockSize)
	if blocks > math.MaxInt64/int64(info.blockBytes) {
		return 0, false
	}
	return blocks * int64(info.blockBytes), true
}
