package quant

import (
	"fmt"
	"math"

	"github.com/tokenbytoken/course/engine/gguf"
)

// This file holds the block layouts of the types the package reads and,
// for each, a plain loop that turns blocks back into numbers: the
// reference the fast products are tested against, written to be read.
//
// Every multi-byte number is little-endian. "f16" is an IEEE half
// precision number (1 sign bit, 5 exponent bits, 10 mantissa bits).

// Dequantize sets dst to the numbers that data holds as type t. dst must
// hold a whole number of t's blocks, and data exactly that many blocks.
func Dequantize(t gguf.Type, dst []float32, data []byte) error {
	f, ok := dequantizers[t]
	if !ok {
		return fmt.Errorf("quant: cannot dequantize type %v", t)
	}
	bs, bb := t.BlockSize(), t.BlockBytes()
	if len(dst)%bs != 0 {
		return fmt.Errorf("quant: %d numbers are not a whole number of %v blocks of %d", len(dst), t, bs)
	}
	if want := len(dst) / bs * bb; len(data) != want {
		return fmt.Errorf("quant: %d numbers of %v take %d bytes, not %d", len(dst), t, want, len(data))
	}
	f(dst, data)
	return nil
}

// dequantizers holds each type's loop. Each sets dst (a whole number of
// blocks) from blocks, which holds exactly as many blocks.
var dequantizers = map[gguf.Type]func(dst []float32, blocks []byte){
	gguf.F32:  dequantizeF32,
	gguf.F16:  dequantizeF16,
	gguf.BF16: dequantizeBF16,
	gguf.Q8_0: dequantizeQ8_0,
	gguf.Q4_0: dequantizeQ4_0,
	gguf.Q4_1: dequantizeQ4_1,
	gguf.Q4_K: dequantizeQ4_K,
	gguf.Q5_K: dequantizeQ5_K,
	gguf.Q6_K: dequantizeQ6_K,
}

// f16 converts an IEEE half precision number to float32, exactly: every
// half is a float32. Infinities and NaNs keep their sign and their
// mantissa bits.
func f16(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp != 0: // normal: rebias the exponent from 15 to 127
		return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
	default: // zero or subnormal: mant·2⁻²⁴, a normal float32 unless 0
		v := float32(mant) * 0x1p-24
		if sign != 0 {
			v = -v
		}
		return v
	}
}

// f16At is the f16 at b[0:2], as a float32.
func f16At(b []byte) float32 { return f16(uint16(b[0]) | uint16(b[1])<<8) }

// F32: each number is a little-endian IEEE float32.
func dequantizeF32(dst []float32, blocks []byte) {
	for i := range dst {
		b := blocks[4*i:]
		dst[i] = math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
	}
}

// F16: each number is an f16.
func dequantizeF16(dst []float32, blocks []byte) {
	for i := range dst {
		dst[i] = f16At(blocks[2*i:])
	}
}

// BF16: each number is a bfloat16, the top 16 bits of a float32.
func dequantizeBF16(dst []float32, blocks []byte) {
	for i := range dst {
		dst[i] = math.Float32frombits(uint32(blocks[2*i])<<16 | uint32(blocks[2*i+1])<<24)
	}
}

// Q8_0: blocks of 32 numbers in 34 bytes,
//
//	d  f16      the scale
//	qs [32]int8 the quants
//
// number i = d·qs[i].
func dequantizeQ8_0(dst []float32, blocks []byte) {
	for b := range len(dst) / 32 {
		blk, y := blocks[34*b:34*b+34], dst[32*b:32*b+32]
		d := f16At(blk)
		for i := range 32 {
			y[i] = d * float32(int8(blk[2+i]))
		}
	}
}

// Q4_0: blocks of 32 numbers in 18 bytes,
//
//	d  f16       the scale
//	qs [16]uint8 the quants, 4 bits each: numbers 0–15 in the low halves
//	             of the bytes, 16–31 in the high halves
//
// number i = d·(q_i − 8), so the quants stand for −8 to 7.
func dequantizeQ4_0(dst []float32, blocks []byte) {
	for b := range len(dst) / 32 {
		blk, y := blocks[18*b:18*b+18], dst[32*b:32*b+32]
		d := f16At(blk)
		for i := range 16 {
			q := blk[2+i]
			y[i] = d * float32(int(q&0xf)-8)
			y[i+16] = d * float32(int(q>>4)-8)
		}
	}
}

// Q4_1: blocks of 32 numbers in 20 bytes,
//
//	d  f16       the scale
//	m  f16       the minimum
//	qs [16]uint8 the quants, 4 bits each, ordered as in Q4_0
//
// number i = d·q_i + m.
func dequantizeQ4_1(dst []float32, blocks []byte) {
	for b := range len(dst) / 32 {
		blk, y := blocks[20*b:20*b+20], dst[32*b:32*b+32]
		d, m := f16At(blk), f16At(blk[2:])
		for i := range 16 {
			q := blk[4+i]
			// d·q is exact (11 bits times 4), so the sum is rounded once
			// whether or not the compiler fuses the two operations.
			y[i] = d*float32(q&0xf) + m
			y[i+16] = d*float32(q>>4) + m
		}
	}
}

// scaleMinK4 unpacks the j-th (0–7) 6-bit scale and min of a Q4_K or
// Q5_K block from its 12 bytes s: scales 0–3 are the low 6 bits of
// s[0:4] and mins 0–3 those of s[4:8]; scales 4–7 are the low halves of
// s[8:12] with the top 2 bits of s[0:4] above them, and mins 4–7 the high
// halves of s[8:12] with the top 2 bits of s[4:8].
func scaleMinK4(j int, s []byte) (scale, min uint8) {
	if j < 4 {
		return s[j] & 63, s[j+4] & 63
	}
	return s[j+4]&0xf | s[j-4]>>6<<4, s[j+4]>>4 | s[j]>>6<<4
}

// Q4_K: super-blocks of 256 numbers in 144 bytes, eight sub-blocks of 32
// with a scale and a min each:
//
//	d      f16        scale of the sub-blocks' scales
//	dmin   f16        scale of the sub-blocks' mins
//	scales [12]uint8  eight 6-bit scales and eight 6-bit mins (scaleMinK4)
//	qs     [128]uint8 the quants, 4 bits each: bytes 32c to 32c+31 hold
//	                  sub-block 2c in their low halves and 2c+1 in their
//	                  high halves
//
// number i of sub-block j = d·scale_j·q_i − dmin·min_j.
func dequantizeQ4_K(dst []float32, blocks []byte) {
	for b := range len(dst) / 256 {
		blk, y := blocks[144*b:144*b+144], dst[256*b:256*b+256]
		d, dmin := f16At(blk), f16At(blk[2:])
		qs := blk[16:]
		for j := range 8 {
			sc, mn := scaleMinK4(j, blk[4:16])
			// d·sc, dmin·mn and dl·q are exact (11 bits times 6, then 4),
			// so each number is rounded once, by the subtraction.
			dl, ml := d*float32(sc), dmin*float32(mn)
			shift := 4 * uint(j%2)
			for i := range 32 {
				q := qs[32*(j/2)+i] >> shift & 0xf
				y[32*j+i] = dl*float32(q) - ml
			}
		}
	}
}

// Q5_K: super-blocks of 256 numbers in 176 bytes, as Q4_K with a fifth
// bit for each quant:
//
//	d      f16
//	dmin   f16
//	scales [12]uint8  as in Q4_K
//	qh     [32]uint8  the fifth bits: bit j of qh[i] is the top bit of
//	                  number i of sub-block j
//	qs     [128]uint8 the low 4 bits, as Q4_K's quants
//
// number i of sub-block j = d·scale_j·q_i − dmin·min_j, q_i from 0 to 31.
func dequantizeQ5_K(dst []float32, blocks []byte) {
	for b := range len(dst) / 256 {
		blk, y := blocks[176*b:176*b+176], dst[256*b:256*b+256]
		d, dmin := f16At(blk), f16At(blk[2:])
		qh, qs := blk[16:48], blk[48:]
		for j := range 8 {
			sc, mn := scaleMinK4(j, blk[4:16])
			dl, ml := d*float32(sc), dmin*float32(mn) // exact, as in Q4_K
			shift := 4 * uint(j%2)
			for i := range 32 {
				q := qs[32*(j/2)+i]>>shift&0xf | (qh[i]>>uint(j)&1)<<4
				y[32*j+i] = dl*float32(q) - ml
			}
		}
	}
}

// Q6_K: super-blocks of 256 numbers in 210 bytes, sixteen sub-blocks of
// 16 with a scale each:
//
//	ql     [128]uint8 the low 4 bits of the quants
//	qh     [64]uint8  the top 2 bits
//	scales [16]int8   the sub-blocks' scales
//	d      f16        scale of the scales
//
// The super-block is two halves of 128 numbers; half h uses ql[64h:64h+64]
// and qh[32h:32h+32]. Number r of a half (0–127) has its low 4 bits in
// ql[64h + r%64], in the low nibble for r < 64 and the high one above, and
// its top 2 bits at bit 2·(r/32) of qh[32h + r%32]. Number i of the
// super-block = d·scales[i/16]·(q_i − 32), the quants standing for −32 to
// 31.
func dequantizeQ6_K(dst []float32, blocks []byte) {
	for b := range len(dst) / 256 {
		blk, y := blocks[210*b:210*b+210], dst[256*b:256*b+256]
		d := f16At(blk[208:])
		for i := range 256 {
			h, r := i/128, i%128
			lo := blk[64*h+r%64] >> (4 * uint(r/64)) & 0xf
			hi := blk[128+32*h+r%32] >> (2 * uint(r/32)) & 3
			q := int(lo|hi<<4) - 32
			// d·scale·q has at most 11+7+5 significant bits, so it is
			// exact in float32 whichever product is taken first.
			y[i] = d * float32(int8(blk[192+i/16])) * float32(q)
		}
	}
}
