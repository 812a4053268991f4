package engine

import (
	"fmt"

	"github.com/tokenbytoken/course/engine/internal/f16"
	"github.com/tokenbytoken/course/engine/internal/ggml"
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
	// Keys and Values hold a cache of float32 numbers, (layer, position,
	// kv_dim), with room for Capacity positions. In a cache of f16
	// numbers they are nil.
	Keys, Values []float32
	// HalfKeys and HalfValues hold a cache of f16 numbers, in the same
	// layout, each number as its IEEE half-precision bits. In a cache of
	// float32 numbers they are nil.
	HalfKeys, HalfValues []uint16

	half   bool      // which of the two the cache holds, before it has room
	views  []kvLayer // each layer's keys and values, as one page of room positions
	layers int
	kvDim  int
	room   int // positions allocated per layer
	n      int // positions written: 0..n-1 hold keys and values
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
// with half; it grows on demand.
func newKVCache(c Config, half bool) *KVCache {
	return &KVCache{half: half, layers: c.NLayers, kvDim: c.KVDim(), seqLen: c.SeqLen}
}

// Half reports whether the cache holds f16 numbers (HalfKeys and
// HalfValues) rather than float32 ones (Keys and Values).
func (kv *KVCache) Half() bool { return kv.half }

// Len is the number of positions the cache holds: the passes that wrote
// to it last wrote positions up to Len-1. A pass writing at an earlier
// position cuts it back there, as a sequence is cut back.
func (kv *KVCache) Len() int { return kv.n }

// fits reports whether the cache is of the shape and numbers of a model
// of shape c whose cache holds f16 numbers when half is set.
func (kv *KVCache) fits(c Config, half bool) bool {
	return kv.layers == c.NLayers && kv.kvDim == c.KVDim() && kv.seqLen == c.SeqLen && kv.half == half
}

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
	n := int64(kv.layers) * int64(positions) * int64(kv.kvDim)
	size := int64(4)
	if kv.half {
		size = 2
	}
	what := fmt.Sprintf("the KV cache for %d positions (2 × %d layers × %d positions × %d kv_dim × %d bytes)", positions, kv.layers, positions, kv.kvDim, size)
	if err := checkMemory(what, 2*size*n); err != nil {
		return err
	}
	if kv.half {
		kv.HalfKeys = regrow(kv.HalfKeys, kv.layers, kv.room*kv.kvDim, positions*kv.kvDim)
		kv.HalfValues = regrow(kv.HalfValues, kv.layers, kv.room*kv.kvDim, positions*kv.kvDim)
	} else {
		kv.Keys = regrow(kv.Keys, kv.layers, kv.room*kv.kvDim, positions*kv.kvDim)
		kv.Values = regrow(kv.Values, kv.layers, kv.room*kv.kvDim, positions*kv.kvDim)
	}
	kv.room = positions
	kv.views = make([]kvLayer, kv.layers)
	for l := range kv.views {
		o, e := kv.at(l, 0), kv.at(l, positions)
		v := &kv.views[l]
		v.size = positions
		if kv.half {
			v.halfKeys, v.halfValues = [][]uint16{kv.HalfKeys[o:e]}, [][]uint16{kv.HalfValues[o:e]}
		} else {
			v.keys, v.values = [][]float32{kv.Keys[o:e]}, [][]float32{kv.Values[o:e]}
		}
	}
	return nil
}

// regrow copies layers of old, old numbers each, into a new slice of now
// numbers a layer.
func regrow[T float32 | uint16](old []T, layers, oldLayer, newLayer int) []T {
	grown := make([]T, layers*newLayer)
	if oldLayer > 0 {
		for l := range layers {
			copy(grown[l*newLayer:], old[l*oldLayer:(l+1)*oldLayer])
		}
	}
	return grown
}

// at is where a layer's position starts in the storage.
func (kv *KVCache) at(layer, pos int) int { return (layer*kv.room + pos) * kv.kvDim }

// Key returns the key of one layer at one position (below Capacity) as
// float32 numbers: in a cache of float32 numbers, the cache's own (writing
// to it changes the cache); in a cache of f16 numbers, a copy, decoded.
func (kv *KVCache) Key(layer, pos int) []float32 {
	return kv.numbers(kv.Keys, kv.HalfKeys, kv.at(layer, pos))
}

// Value returns the value of one layer at one position, as Key does.
func (kv *KVCache) Value(layer, pos int) []float32 {
	return kv.numbers(kv.Values, kv.HalfValues, kv.at(layer, pos))
}

func (kv *KVCache) numbers(f32 []float32, half []uint16, o int) []float32 {
	if !kv.half {
		return f32[o : o+kv.kvDim]
	}
	out := make([]float32, kv.kvDim)
	f16.Decode(out, half[o:o+kv.kvDim])
	return out
}

// HalfKey returns the key of one layer at one position in a cache of f16
// numbers, the cache's own bits; nil in a cache of float32 numbers.
func (kv *KVCache) HalfKey(layer, pos int) []uint16 {
	if !kv.half {
		return nil
	}
	o := kv.at(layer, pos)
	return kv.HalfKeys[o : o+kv.kvDim]
}

// HalfValue returns the value of one layer at one position, as HalfKey
// does.
func (kv *KVCache) HalfValue(layer, pos int) []uint16 {
	if !kv.half {
		return nil
	}
	o := kv.at(layer, pos)
	return kv.HalfValues[o : o+kv.kvDim]
}

// CopyPosition copies the key and value of one layer at position from to
// position to, in the cache's own numbers.
func (kv *KVCache) CopyPosition(layer, to, from int) {
	a, b := kv.at(layer, to), kv.at(layer, from)
	if kv.half {
		copy(kv.HalfKeys[a:a+kv.kvDim], kv.HalfKeys[b:b+kv.kvDim])
		copy(kv.HalfValues[a:a+kv.kvDim], kv.HalfValues[b:b+kv.kvDim])
		return
	}
	copy(kv.Keys[a:a+kv.kvDim], kv.Keys[b:b+kv.kvDim])
	copy(kv.Values[a:a+kv.kvDim], kv.Values[b:b+kv.kvDim])
}

// CopyPrefix copies positions 0..n-1 of every layer from src, a cache of
// the same shape and numbers, as ModelLM shares a prompt's prefix. Both
// must have room for n positions.
func (kv *KVCache) CopyPrefix(src *KVCache, n int) error {
	if src.half != kv.half || src.layers != kv.layers || src.kvDim != kv.kvDim {
		return fmt.Errorf("KV cache: copying between caches of different shapes or numbers")
	}
	if n > kv.room || n > src.room {
		return fmt.Errorf("KV cache: copying %d positions into room for %d, from room for %d", n, kv.room, src.room)
	}
	for l := range kv.layers {
		d, s := kv.at(l, 0), src.at(l, 0)
		m := n * kv.kvDim
		if kv.half {
			copy(kv.HalfKeys[d:d+m], src.HalfKeys[s:s+m])
			copy(kv.HalfValues[d:d+m], src.HalfValues[s:s+m])
		} else {
			copy(kv.Keys[d:d+m], src.Keys[s:s+m])
			copy(kv.Values[d:d+m], src.Values[s:s+m])
		}
	}
	kv.n = n
	return nil
}

// Bytes is the memory the cache holds now.
func (kv *KVCache) Bytes() int64 {
	return 4*int64(len(kv.Keys)+len(kv.Values)) + 2*int64(len(kv.HalfKeys)+len(kv.HalfValues))
}

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

// kvLayer is one layer's keys and values, in pages of size positions
// each laid out (position, kv_dim), in the numbers of the storage they
// view: float32 (keys, values) or f16 (halfKeys, halfValues), the other
// pair nil. A cache in one piece is one page; a PagedCache's pages are
// its blocks.
type kvLayer struct {
	keys, values         [][]float32
	halfKeys, halfValues [][]uint16
	size                 int
}

// at is the page of position pos, and where in the page its kv_dim
// numbers start.
func (kl *kvLayer) at(pos, kvDim int) (page, offset int) {
	return pos / kl.size, pos % kl.size * kvDim
}

// heads views key/value head h (head_size numbers from h·head_size of
// each position) of a layer of f16 numbers, as ggml's attention reads it.
func (kl *kvLayer) heads(h int, c Config) ggml.Pages {
	hs := c.HeadSize()
	return ggml.Pages{Keys: kl.halfKeys, Values: kl.halfValues, Size: kl.size, Stride: c.KVDim(), Offset: h * hs}
}

// layer views the keys and values of layer l.
func (kv *KVCache) layer(l int) kvLayer { return kv.views[l] }

// prepare makes room for positions up to end-1, about to be written from
// lo on (see Cache).
func (kv *KVCache) prepare(lo, end int) error { return kv.reserve(end) }

// record, written and trim are the Cache methods a cache in one piece has
// nothing to do for but note its length.
func (kv *KVCache) record(pos, token int, tiled bool) {}
func (kv *KVCache) written(n int)                     { kv.n = n }
func (kv *KVCache) trim()                             {}
