package kvcache

import (
	"fmt"
	"slices"
)

// Cache is the KV cache of one attention layer for one sequence: the key
// and the value of every position so far. Keys and values never change once
// computed, so each step appends its own and attends over all of them.
type Cache struct {
	nHeads, nKVHeads, headDim int
	keys, values              [][]float32 // keys[t], values[t]: position t, nKVHeads × headDim numbers
}

// NewCache returns an empty cache for a layer with nHeads query heads and
// nKVHeads key/value heads of headDim numbers each.
func NewCache(nHeads, nKVHeads, headDim int) *Cache {
	return &Cache{nHeads: nHeads, nKVHeads: nKVHeads, headDim: headDim}
}

// Append stores copies of the next position's key and value.
func (c *Cache) Append(k, v []float32) error {
	kvDim := c.nKVHeads * c.headDim
	if len(k) != kvDim || len(v) != kvDim {
		return fmt.Errorf("key of %d and value of %d numbers; this cache stores %d (%d heads × %d)",
			len(k), len(v), kvDim, c.nKVHeads, c.headDim)
	}
	c.keys = append(c.keys, slices.Clone(k))
	c.values = append(c.values, slices.Clone(v))
	return nil
}

// Len is the number of positions stored.
func (c *Cache) Len() int { return len(c.keys) }

// Attend returns the attention output of the newest position's query over
// every cached position.
func (c *Cache) Attend(q []float32) []float32 {
	if len(c.keys) == 0 || len(q) != c.nHeads*c.headDim {
		return nil
	}
	return AttendHeads(q, c.keys, c.values, c.nHeads, c.nKVHeads)
}
