package kvcache

import "fmt"

type entry struct{ k, v []float32 }

// Cache stores one entry per position.
type Cache struct {
	heads, kvHeads, dim int
	entries             []entry
}

func NewCache(nHeads, nKVHeads, headDim int) *Cache {
	return &Cache{heads: nHeads, kvHeads: nKVHeads, dim: headDim}
}

func (c *Cache) Append(k, v []float32) error {
	want := c.kvHeads * c.dim
	if len(k) != want || len(v) != want {
		return fmt.Errorf("want %d numbers for key and value, got %d and %d", want, len(k), len(v))
	}
	kc := make([]float32, want)
	vc := make([]float32, want)
	copy(kc, k)
	copy(vc, v)
	c.entries = append(c.entries, entry{kc, vc})
	return nil
}

func (c *Cache) Len() int {
	return len(c.entries)
}

func (c *Cache) Attend(q []float32) []float32 {
	if len(c.entries) == 0 {
		return nil
	}
	if len(q) != c.heads*c.dim {
		return nil
	}
	var ks, vs [][]float32
	for _, e := range c.entries {
		ks = append(ks, e.k)
		vs = append(vs, e.v)
	}
	return AttendHeads(q, ks, vs, c.heads, c.kvHeads)
}
