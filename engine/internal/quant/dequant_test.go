package quant

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tokenbytoken/course/engine/gguf"
)

// fixture is one file written by testdata/gen_fixtures.py: blocks of a
// type and the numbers the Python gguf package dequantizes them to.
type fixture struct {
	typ    gguf.Type
	blocks []byte
	want   []float32
}

// fixtureFiles names each type's fixture.
var fixtureFiles = map[gguf.Type]string{
	gguf.F32: "f32.bin", gguf.F16: "f16.bin", gguf.BF16: "bf16.bin",
	gguf.Q8_0: "q8_0.bin", gguf.Q4_0: "q4_0.bin", gguf.Q4_1: "q4_1.bin",
	gguf.Q4_K: "q4_k.bin", gguf.Q5_K: "q5_k.bin", gguf.Q6_K: "q6_k.bin",
}

func readFixture(t *testing.T, typ gguf.Type) fixture {
	t.Helper()
	name := filepath.Join("testdata", fixtureFiles[typ])
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 8 {
		t.Fatalf("%s: %d bytes, too short for the header", name, len(b))
	}
	got, n := gguf.Type(binary.LittleEndian.Uint32(b)), int(binary.LittleEndian.Uint32(b[4:]))
	if got != typ {
		t.Fatalf("%s holds %v blocks, not %v", name, got, typ)
	}
	nb, nf := n*typ.BlockBytes(), n*typ.BlockSize()
	if len(b) != 8+nb+4*nf {
		t.Fatalf("%s: %d bytes, not %d for %d blocks", name, len(b), 8+nb+4*nf, n)
	}
	f := fixture{typ: typ, blocks: b[8 : 8+nb], want: make([]float32, nf)}
	for i := range f.want {
		f.want[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[8+nb+4*i:]))
	}
	return f
}

// sameNumber reports whether a and b are the same float32 bit for bit,
// or both NaN: which NaN an operation returns when given two is the
// processor's choice, so payloads are not compared.
func sameNumber(a, b float32) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return math.Float32bits(a) == math.Float32bits(b)
}

// TestDequantizeMatchesGGUFPackage compares each type's loop with the
// Python gguf package on blocks full of edge values.
func TestDequantizeMatchesGGUFPackage(t *testing.T) {
	for typ := range fixtureFiles {
		t.Run(typ.String(), func(t *testing.T) {
			f := readFixture(t, typ)
			got := make([]float32, len(f.want))
			if err := Dequantize(typ, got, f.blocks); err != nil {
				t.Fatal(err)
			}
			nan := 0
			for i := range got {
				if !sameNumber(got[i], f.want[i]) {
					bs := typ.BlockSize()
					t.Fatalf("number %d (block %d, %d in it): %g (%#08x), gguf package %g (%#08x)",
						i, i/bs, i%bs, got[i], math.Float32bits(got[i]), f.want[i], math.Float32bits(f.want[i]))
				}
				if got[i] != got[i] {
					nan++
				}
			}
			if nan == 0 || nan == len(got) {
				t.Errorf("%d NaNs in %d numbers: the fixture should have some, not all", nan, len(got))
			}
		})
	}
}

// TestF16EveryPattern checks f16 on all 65536 bit patterns against
// identities: the value of a finite half is (−1)^s·2^(e−15)·(1+m/1024),
// or 2^−14·m/1024 for e = 0, and the float32 holds it exactly.
func TestF16EveryPattern(t *testing.T) {
	for h := range 1 << 16 {
		s, e, m := h>>15, h>>10&0x1f, h&0x3ff
		got := f16(uint16(h))
		var want float64
		switch {
		case e == 0x1f && m == 0:
			want = math.Inf(1)
		case e == 0x1f:
			want = math.NaN()
		case e == 0:
			want = math.Ldexp(float64(m)/1024, -14)
		default:
			want = math.Ldexp(1+float64(m)/1024, e-15)
		}
		if s == 1 {
			want = -want
		}
		if !sameNumber(got, float32(want)) || (got == 0 && math.Signbit(float64(got)) != (s == 1)) {
			t.Fatalf("f16(%#04x) = %g, want %g", h, got, want)
		}
	}
}

// TestDequantizeRejectsBadSizes checks that sizes that are not whole
// blocks, and types without a loop, are errors.
func TestDequantizeRejectsBadSizes(t *testing.T) {
	for _, c := range []struct {
		typ   gguf.Type
		n, nb int
	}{
		{gguf.Q4_1, 31, 20},   // not a whole block
		{gguf.Q4_1, 32, 19},   // one byte short
		{gguf.Q4_1, 32, 40},   // too many bytes
		{gguf.Q6_K, 256, 0},   // no data
		{gguf.Q5_0, 32, 22},   // no loop for this type
		{gguf.Type(99), 1, 1}, // not a type
	} {
		if err := Dequantize(c.typ, make([]float32, c.n), make([]byte, c.nb)); err == nil {
			t.Errorf("Dequantize(%v, %d numbers, %d bytes) gave no error", c.typ, c.n, c.nb)
		}
	}
	if err := Dequantize(gguf.Q8_0, make([]float32, 64), make([]byte, 68)); err != nil {
		t.Errorf("two whole Q8_0 blocks: %v", err)
	}
}
