package kvcache

import (
	"fmt"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/exercises/internal/check"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTask3_AppendLen: a new cache is empty and attends to nothing; every
// Append adds one position; a key or value of the wrong size is refused
// with an error and not stored.
//
//grade:task 3 points 1
func TestTask3_AppendLen(t *testing.T) {
	defer check.Recover(t)
	c := NewCache(4, 2, 3) // keys and values of 2 heads × 3 = 6 numbers
	if c == nil {
		t.Fatalf("NewCache(4, 2, 3) = nil; want an empty cache")
	}
	if n := c.Len(); n != 0 {
		t.Fatalf("NewCache(4, 2, 3).Len() = %d; want 0", n)
	}
	if got := c.Attend(make([]float32, 12)); got != nil {
		t.Errorf("Attend on an empty cache = %s; want nil (no position to attend to)", check.Vec(got))
	}
	kv := []float32{1, 2, 3, 4, 5, 6}
	for i := 1; i <= 5; i++ {
		if err := c.Append(kv, kv); err != nil {
			t.Fatalf("Append(key of 6, value of 6) on a cache of 2 KV heads × 3: %v", err)
		}
		if n := c.Len(); n != i {
			t.Fatalf("after %d Appends, Len() = %d; want %d", i, n, i)
		}
	}
	if err := c.Append(kv[:5], kv); err == nil {
		t.Errorf("Append(key of 5, value of 6) on a cache of 2 KV heads × 3 returned no error; want one")
	}
	if err := c.Append(kv, append(kv, 7)); err == nil {
		t.Errorf("Append(key of 6, value of 7) on a cache of 2 KV heads × 3 returned no error; want one")
	}
	if n := c.Len(); n != 5 {
		t.Errorf("after 5 Appends and 2 refused ones, Len() = %d; want 5", n)
	}
	if got := c.Attend(make([]float32, 11)); got != nil {
		t.Errorf("Attend(q of 11) on a cache of 4 heads × 3 = %s; want nil (q needs 12 numbers)", check.Vec(got))
	}
}

// TestTask3_CopiesKeys: the engine, like most callers, computes every
// position's key and value into the same buffers. Append must store
// copies: overwriting the buffers afterwards must not change what the cache
// attends over.
//
//grade:task 3 points 1
func TestTask3_CopiesKeys(t *testing.T) {
	defer check.Recover(t)
	r := rand.New(rand.NewPCG(7, 3))
	const heads, kvHeads, hs, n = 4, 2, 4, 6
	keys, values := randVecs(r, n, kvHeads*hs), randVecs(r, n, kvHeads*hs)
	c := NewCache(heads, kvHeads, hs)
	if c == nil {
		t.Fatalf("NewCache(%d, %d, %d) = nil; want an empty cache", heads, kvHeads, hs)
	}
	kbuf, vbuf := make([]float32, kvHeads*hs), make([]float32, kvHeads*hs)
	for i := range n {
		copy(kbuf, keys[i])
		copy(vbuf, values[i])
		if err := c.Append(kbuf, vbuf); err != nil {
			t.Fatalf("Append at position %d: %v", i, err)
		}
	}
	for i := range kbuf { // the caller moves on and reuses its buffers
		kbuf[i], vbuf[i] = 99, -99
	}
	q := randVecs(r, 1, heads*hs)[0]
	want := reference(q, keys, values, heads, kvHeads)
	got := c.Attend(q)
	if i := mismatch(got, want, tol); i >= 0 {
		msg := attendMismatch(fmt.Sprintf("after %d Appends from reused buffers, then overwriting the buffers, Attend(q)", n), got, want, tol)
		if freshBuffersRight(heads, kvHeads, hs, keys, values, q, want) {
			msg += "\nfrom fresh buffers, never reused, the same keys and values give the right answer: Append must keep copies, not the caller's buffers"
		}
		t.Error(msg)
	}
}

// freshBuffersRight reports whether a new cache, given every key and value
// in a buffer of its own that nobody touches afterwards, attends right: if
// so, and the cache fed from reused buffers does not, the difference is
// that Append keeps the buffers rather than copies of them.
func freshBuffersRight(heads, kvHeads, hs int, keys, values [][]float32, q []float32, want []float64) bool {
	c := NewCache(heads, kvHeads, hs)
	if c == nil {
		return false
	}
	for i := range keys {
		if err := c.Append(slices.Clone(keys[i]), slices.Clone(values[i])); err != nil {
			return false
		}
	}
	return mismatch(c.Attend(q), want, tol) < 0
}

// TestTask3_EveryPosition: decoding position after position — append the
// position's key and value, attend with its query — gives at EVERY
// position what recomputing attention over the whole prefix from scratch
// gives (within 1e-5 of the float64 reference). Attend leaves the cache as
// it is: asking twice gives the same answer and Len does not move.
//
//grade:task 3 points 2
func TestTask3_EveryPosition(t *testing.T) {
	defer check.Recover(t)
	r := rand.New(rand.NewPCG(7, 4))
	for _, h := range []struct{ heads, kv, hs int }{{6, 2, 8}, {4, 4, 4}, {8, 1, 2}} {
		const n = 40
		keys, values := randVecs(r, n, h.kv*h.hs), randVecs(r, n, h.kv*h.hs)
		queries := randVecs(r, n, h.heads*h.hs)
		c := NewCache(h.heads, h.kv, h.hs)
		if c == nil {
			t.Fatalf("NewCache(%d, %d, %d) = nil; want an empty cache", h.heads, h.kv, h.hs)
		}
		for pos := range n {
			if err := c.Append(keys[pos], values[pos]); err != nil {
				t.Fatalf("%d heads, %d KV heads of %d: Append at position %d: %v", h.heads, h.kv, h.hs, pos, err)
			}
			want := reference(queries[pos], keys[:pos+1], values[:pos+1], h.heads, h.kv)
			got := c.Attend(queries[pos])
			if i := mismatch(got, want, tol); i >= 0 {
				if i == len(got) {
					t.Fatalf("%d heads, %d KV heads of %d: Attend at position %d returned %d numbers; want %d", h.heads, h.kv, h.hs, pos, len(got), len(want))
				}
				t.Fatalf("%d heads, %d KV heads of %d: cached Attend at position %d: output %d = %.6g; attention over positions 0…%d from scratch gives %.6g",
					h.heads, h.kv, h.hs, pos, i, got[i], pos, want[i])
			}
			again := c.Attend(queries[pos])
			if i := mismatch(again, want, tol); i >= 0 || c.Len() != pos+1 {
				t.Fatalf("%d heads, %d KV heads of %d: asking Attend twice at position %d changed the answer or the cache (Len() = %d; want %d)", h.heads, h.kv, h.hs, pos, c.Len(), pos+1)
			}
		}
	}
}

// TestTask3_CourseModel: the real keys and values of the course's model.
// The test runs a prompt through models.Default(), then feeds every
// layer's cached keys and values, position by position, into your Cache
// (6 query heads, 2 KV heads of 32). With a random query at each position
// (the engine does not hand out its queries), your cached attention must
// equal attention over the prefix from scratch (within 1e-5 of the float64
// reference).
//
//grade:task 3 points 2
func TestTask3_CourseModel(t *testing.T) {
	defer check.Recover(t)
	m, tok, err := models.Default()
	if err != nil {
		t.Fatalf("models.Default(): %v", err)
	}
	cfg := m.Config
	ids, err := tok.Encode("func (b *Buffer) Len() int {\n\treturn len(b.buf) - b.off\n}\n", true, false)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	st := m.NewState()
	if _, err := st.Prefill(ids, 0); err != nil {
		t.Fatalf("Prefill: %v", err)
	}
	r := rand.New(rand.NewPCG(7, 5))
	n := len(ids)
	for l := range cfg.NLayers {
		keys, values := make([][]float32, n), make([][]float32, n)
		for p := range n {
			keys[p], values[p] = st.Cache.Key(l, p), st.Cache.Value(l, p) // kv_dim numbers each
		}
		c := NewCache(cfg.NHeads, cfg.NKVHeads, cfg.HeadSize())
		if c == nil {
			t.Fatalf("NewCache(%d, %d, %d) = nil; want an empty cache", cfg.NHeads, cfg.NKVHeads, cfg.HeadSize())
		}
		for pos := range n {
			if err := c.Append(keys[pos], values[pos]); err != nil {
				t.Fatalf("layer %d: Append at position %d: %v", l, pos, err)
			}
			q := randVecs(r, 1, cfg.Dim)[0]
			want := reference(q, keys[:pos+1], values[:pos+1], cfg.NHeads, cfg.NKVHeads)
			got := c.Attend(q)
			if i := mismatch(got, want, tol); i >= 0 {
				if i == len(got) {
					t.Fatalf("course model, layer %d: Attend at position %d returned %d numbers; want %d", l, pos, len(got), len(want))
				}
				t.Fatalf("course model, layer %d: cached Attend at position %d: output %d = %.6g; attention over positions 0…%d from scratch gives %.6g",
					l, pos, i, got[i], pos, want[i])
			}
		}
	}
}
