package kvcache

import "errors"

// Cache keeps every position's key and value in two flat slices.
type Cache struct {
	nHeads, nKVHeads, headDim int
	flatK, flatV              []float32
	n                         int
}

func NewCache(nHeads, nKVHeads, headDim int) *Cache {
	c := new(Cache)
	c.nHeads, c.nKVHeads, c.headDim = nHeads, nKVHeads, headDim
	return c
}

func (c *Cache) width() int { return c.nKVHeads * c.headDim }

func (c *Cache) Append(k, v []float32) error {
	if len(k) != c.width() {
		return errors.New("kvcache: key has the wrong length")
	}
	if len(v) != c.width() {
		return errors.New("kvcache: value has the wrong length")
	}
	c.flatK = append(c.flatK, k...)
	c.flatV = append(c.flatV, v...)
	c.n++
	return nil
}

func (c *Cache) Len() int { return c.n }

func (c *Cache) Attend(q []float32) []float32 {
	if c.n == 0 || len(q) != c.nHeads*c.headDim {
		return nil
	}
	w := c.width()
	ks := make([][]float32, c.n)
	vs := make([][]float32, c.n)
	for t := 0; t < c.n; t++ {
		ks[t] = c.flatK[t*w : (t+1)*w]
		vs[t] = c.flatV[t*w : (t+1)*w]
	}
	return AttendHeads(q, ks, vs, c.nHeads, c.nKVHeads)
}
