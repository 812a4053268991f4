package engine

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine/internal/f16"
)

// TestRMSNormRowsLlamaCpp: normalising rows four at a time gives, bit for
// bit, what normalising each row by itself gives, in place or not; and a
// row's scale is 1/√(mean + eps) of its float64 sum of squares.
func TestRMSNormRowsLlamaCpp(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	const dim, rows = 96, 7
	x := make([]float32, dim*rows)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * math.Ldexp(1, rng.IntN(8)-4))
	}
	w := make([]float32, dim)
	for i := range w {
		w[i] = float32(rng.NormFloat64())
	}
	want := make([]float32, len(x))
	for r := range rows {
		rmsnormLlamaCpp(want[r*dim:(r+1)*dim], x[r*dim:(r+1)*dim], w, 1e-5)
	}
	got := make([]float32, len(x))
	rmsnormRowsLlamaCpp(got, x, w, dim, 1e-5)
	inPlace := slices.Clone(x)
	rmsnormRowsLlamaCpp(inPlace, inPlace, w, dim, 1e-5)
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) || math.Float32bits(inPlace[i]) != math.Float32bits(want[i]) {
			t.Fatalf("number %d: rows %g, in place %g, one row at a time %g", i, got[i], inPlace[i], want[i])
		}
	}
	// The first row by hand, in float64 from the float32 squares.
	var sum float64
	for _, v := range x[:dim] {
		sum += float64(v * v)
	}
	scale := 1 / math.Sqrt(float64(float32(sum/dim)+1e-5))
	for i, v := range x[:dim] {
		if d := math.Abs(float64(want[i]) - float64(v)*scale*float64(w[i])); d > 1e-6*math.Abs(float64(want[i]))+1e-30 {
			t.Fatalf("number %d: %g; x·scale·w is %g", i, want[i], float64(v)*scale*float64(w[i]))
		}
	}
}

// TestHalfKVCache: a cache of f16 numbers takes two bytes a number (half of
// KVCacheBytes, as Model.KVCacheBytes says for a model of LlamaCpp
// arithmetic), holds them in HalfKeys and HalfValues and nothing in Keys
// and Values, reads a key back as the numbers stored rounded to f16, and
// copying a prefix into another such cache, as ModelLM shares a prompt,
// copies the numbers.
func TestHalfKVCache(t *testing.T) {
	c := tinyShape
	kv := newKVCache(c, true)
	if err := kv.reserve(10); err != nil {
		t.Fatal(err)
	}
	if !kv.Half() || kv.Keys != nil || kv.Values != nil || len(kv.HalfKeys) == 0 {
		t.Fatalf("a cache made for f16: Half %v, %d float32 keys, %d f16 keys", kv.Half(), len(kv.Keys), len(kv.HalfKeys))
	}
	m := &Model{Config: c, Matrices: &Matrices{Arithmetic: LlamaCpp}}
	if got, want := kv.Bytes(), m.KVCacheBytes(kv.Capacity()); got != want || want != KVCacheBytes(c, kv.Capacity())/2 {
		t.Errorf("%d bytes for %d positions; Model.KVCacheBytes %d, half of KVCacheBytes %d", got, kv.Capacity(), want, KVCacheBytes(c, kv.Capacity())/2)
	}
	key := make([]float32, c.KVDim())
	for i := range key {
		key[i] = float32(i) - 17.3
	}
	f16.Encode(kv.HalfKey(1, 3), key)
	got := kv.Key(1, 3)
	for i := range key {
		if got[i] != f16.Round(key[i]) {
			t.Fatalf("key number %d: %g stored, %g read back; want %g", i, key[i], got[i], f16.Round(key[i]))
		}
	}
	other := newKVCache(c, true)
	if err := other.reserve(4); err != nil {
		t.Fatal(err)
	}
	if err := other.CopyPrefix(kv, 4); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(other.HalfKey(1, 3), kv.HalfKey(1, 3)) {
		t.Error("copying a prefix did not copy its keys")
	}
	if err := newKVCache(c, false).CopyPrefix(kv, 4); err == nil {
		t.Error("copying f16 numbers into a float32 cache was not refused")
	}
	kv.CopyPosition(1, 5, 3)
	if !slices.Equal(kv.HalfKey(1, 5), kv.HalfKey(1, 3)) {
		t.Error("CopyPosition did not copy the key")
	}
	f32 := newKVCache(c, false)
	if f32.Half() || f32.HalfKey(0, 0) != nil {
		t.Error("a float32 cache says it holds f16")
	}
}

// TestUnknownArithmeticRefused: a model whose Matrices name an arithmetic
// the engine does not have is refused, with the number, before any pass.
func TestUnknownArithmeticRefused(t *testing.T) {
	m := noisyModel(tinyShape, 1, 0.02)
	mats := *m.Matrices
	mats.Arithmetic = 7
	bad := &Model{Config: m.Config, Matrices: &mats, Name: "bad"}
	_, err := bad.NewState().Forward(1, 0)
	if err == nil || !strings.Contains(err.Error(), "arithmetic 7") {
		t.Errorf("Forward with arithmetic 7: %v; want an error naming it", err)
	}
}
