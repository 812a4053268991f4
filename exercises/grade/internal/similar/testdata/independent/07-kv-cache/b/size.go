package kvcache

func CacheBytes(layers, kvHeads, headDim, positions, bytesPerValue int) int64 {
	total := int64(2)
	for _, f := range []int{layers, kvHeads, headDim, positions, bytesPerValue} {
		total *= int64(f)
	}
	return total
}

// UncachedPositions sums an arithmetic series: n terms from prompt to
// prompt+n-1.
func UncachedPositions(prompt, n int) int64 {
	if n <= 0 {
		return 0
	}
	first, last := int64(prompt), int64(prompt+n-1)
	return (first + last) * int64(n) / 2
}

func CachedPositions(prompt, n int) int64 {
	if n <= 0 {
		return 0
	}
	return int64(prompt) + int64(n-1)
}
