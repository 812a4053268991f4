package engine

import (
	"fmt"
	"unsafe"

	"github.com/tokenbytoken/course/engine/internal/f16"
)

// KVCache keeps the keys and values that every layer computed for every
// position so far. They never change once computed, so each new token only
// computes its own key and value and attends over the cache.
//
// A cache holds float32 numbers, as llama2.c's run.c keeps them, or, for
// a model whose Arithmetic is LlamaCpp, f16 numbers (IEEE half precision),
// as llama.cpp keeps them by default: half the memory, and the numbers
// llama.cpp's attention reads. Its size is 2 × layers × positions ×
// kv_dim numbers of 4 or 2 bytes (see KVCacheBytes and
// Model.KVCacheBytes). A State's cache starts empty and grows with the
// sequence, so a model with a long context costs only what a generation
// uses; NewKVCache makes one of float32 numbers for the whole context at
// once.
type KVCache struct {
	// Keys and Values are the cache's storage, (layer, position, kv_dim),
	// with room for Capacity positions, as float32 words: a float32
	// number a word, or in a cache of f16 numbers (Half) two numbers a
	// word, the first in its low 16 bits. Key, Value and Layer return
	// words of them, so that copying words from one cache to another of
	// the same kind copies the numbers.
	Keys   []float32
	Values []float32
	half   bool // f16 numbers, two a word
	layers int
	kvDim  int
	width  int // words a position: kvDim, or kvDim/2 for f16
	room   int // positions allocated per layer
	seqLen int // the model's context: the cache never grows past it
}

// NewKVCache allocates a cache of float32 numbers for a model's full
// context. It refuses a shape that is not a valid model, and a cache
// bigger than the memory available (with the numbers in the error).
func NewKVCache(c Config) (*KVCache, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("KV cache: %w", err)
	}
	kv := newKVCache(c, false)
	if err := kv.grow(c.SeqLen); err != nil {
		return nil, err
	}
	return kv, nil
}

// newKVCache returns an empty cache for a valid shape, of f16 numbers
// with half; it grows on demand. Head sizes are even (Validate), so a
// position's f16 numbers fill whole words.
func newKVCache(c Config, half bool) *KVCache {
	kv := &KVCache{half: half, layers: c.NLayers, kvDim: c.KVDim(), width: c.KVDim(), seqLen: c.SeqLen}
	if half {
		kv.width /= 2
	}
	return kv
}

// Half reports whether the cache holds f16 numbers, two a word of Keys
// and Values, rather than float32 numbers.
func (kv *KVCache) Half() bool { return kv.half }

// Capacity is the number of positions the cache has room for now.
func (kv *KVCache) Capacity() int { return kv.room }

// reserve makes room for at least positions positions (never more than the
// context): it doubles the room, so that a sequence growing one token at a
// time copies each key only a few times, or takes exactly what is asked
// when doubling would not fit in memory.
func (kv *KVCache) reserve(positions int) error {
	if positions <= kv.room {
		return nil
	}
	if positions > kv.seqLen {
		return fmt.Errorf("KV cache: %d positions do not fit the model's context of %d", positions, kv.seqLen)
	}
	if double := min(max(2*kv.room, 64), kv.seqLen); double > positions && kv.grow(double) == nil {
		return nil
	}
	return kv.grow(positions)
}

// grow reallocates the cache with room for exactly positions positions,
// keeping the positions already computed.
func (kv *KVCache) grow(positions int) error {
	n := int64(kv.layers) * int64(positions) * int64(kv.width)
	size := 4
	if kv.half {
		size = 2
	}
	what := fmt.Sprintf("the KV cache for %d positions (2 × %d layers × %d positions × %d kv_dim × %d bytes)", positions, kv.layers, positions, kv.kvDim, size)
	if err := checkMemory(what, 2*4*n); err != nil {
		return err
	}
	keys, values := make([]float32, n), make([]float32, n)
	if kv.room > 0 {
		old, now := kv.room*kv.width, positions*kv.width
		for l := range kv.layers {
			copy(keys[l*now:], kv.Keys[l*old:(l+1)*old])
			copy(values[l*now:], kv.Values[l*old:(l+1)*old])
		}
	}
	kv.Keys, kv.Values, kv.room = keys, values, positions
	return nil
}

// Key returns the words of the key slot of one layer at one position
// (below Capacity): its kv_dim float32 numbers, or, in a cache of f16
// numbers, kv_dim/2 words holding them.
func (kv *KVCache) Key(layer, pos int) []float32 {
	o := (layer*kv.room + pos) * kv.width
	return kv.Keys[o : o+kv.width]
}

// Value returns the words of the value slot of one layer at one position
// (below Capacity), as Key does.
func (kv *KVCache) Value(layer, pos int) []float32 {
	o := (layer*kv.room + pos) * kv.width
	return kv.Values[o : o+kv.width]
}

// Bytes is the memory the cache holds now.
func (kv *KVCache) Bytes() int64 { return int64(len(kv.Keys)+len(kv.Values)) * 4 }

// KVCacheBytes is the formula for a cache of float32 numbers for positions
// tokens, as a llama2.c model's: 2 (keys and values) × layers × kv_heads ×
// head_size × positions × 4 bytes. A GGUF model's cache holds f16 numbers,
// half as much: Model.KVCacheBytes gives a model's own.
func KVCacheBytes(c Config, positions int) int64 {
	return 2 * int64(c.NLayers) * int64(c.NKVHeads) * int64(c.HeadSize()) * int64(positions) * 4
}

// KVCacheBytes is the size of the model's KV cache for positions tokens:
// the package's KVCacheBytes for a model of float32 arithmetic, half of it
// for one whose cache holds f16 numbers (Arithmetic LlamaCpp).
func (m *Model) KVCacheBytes(positions int) int64 {
	n := KVCacheBytes(m.Config, positions)
	if m.Matrices != nil && m.Matrices.Arithmetic == LlamaCpp {
		n /= 2
	}
	return n
}

// Layer returns the words of the keys and values of one layer for
// positions 0..n-1, each laid out (position, kv_dim) as Key says. n must
// be at most Capacity.
func (kv *KVCache) Layer(layer, n int) (keys, values []float32) {
	o := layer * kv.room * kv.width
	return kv.Keys[o : o+n*kv.width], kv.Values[o : o+n*kv.width]
}

// storeHalf rounds src to f16 into the cache's words dst (len(src)/2 of
// them).
func storeHalf(dst, src []float32) { f16.Encode(halves(dst)[:len(src)], src) }

// halves views words as the f16 numbers they hold, two a word.
func halves(words []float32) []uint16 {
	if len(words) == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&words[0])), 2*len(words))
}
