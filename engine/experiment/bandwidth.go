package experiment

import (
	"fmt"
	"runtime"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/parallel"
)

// A decode step reads every weight of the model once to make one token, so
// how fast memory delivers bytes bounds how fast a model can decode. The
// functions here measure that bound on the machine at hand and set decoding
// against it.

// MaxReadBytes is the largest buffer ReadBandwidth accepts.
const MaxReadBytes = 1 << 30

// ReadBandwidth measures how fast this machine reads memory, as a decode
// step reads the weights: it sums a buffer of size bytes, split among
// GOMAXPROCS goroutines (as the engine spreads a matrix product over the
// cores), runs times, and returns the bytes read per second of the fastest
// run. size must be much larger than the processor's caches for the figure
// to be the main memory's; it must be a multiple of 8 in [1 MiB,
// MaxReadBytes].
func ReadBandwidth(size, runs int) (float64, error) {
	if size < 1<<20 || size > MaxReadBytes || size%8 != 0 {
		return 0, fmt.Errorf("read size %d bytes: must be a multiple of 8 between 1 MiB and %d bytes", size, MaxReadBytes)
	}
	if runs < 1 {
		return 0, fmt.Errorf("runs %d: must be at least 1", runs)
	}
	words := make([]uint64, size/8)
	for i := range words {
		words[i] = uint64(i) // touch every page, so that no run pays for first-touch faults
	}
	var total uint64
	best := BestTime(runs, func() { total = parallelSum(words, runtime.GOMAXPROCS(0)) })
	if n := uint64(len(words)); total != n*(n-1)/2 {
		return 0, fmt.Errorf("the sum of 0…%d read back as %d, not %d: memory was not read as written", n-1, total, n*(n-1)/2)
	}
	return float64(size) / max(best, time.Nanosecond).Seconds(), nil
}

// parallelSum adds up words in parts contiguous chunks, shared among the
// cores by the engine's pool.
func parallelSum(words []uint64, parts int) uint64 {
	parts = max(1, min(parts, len(words)))
	sums := make([]uint64, parts)
	parallel.For(parts, true, func(_, p0, p1 int) {
		for p := p0; p < p1; p++ {
			sums[p] = sum(words[p*len(words)/parts : (p+1)*len(words)/parts])
		}
	})
	var total uint64
	for _, s := range sums {
		total += s
	}
	return total
}

// sum adds up words with four independent sums, so that the additions do
// not wait on each other and the loop runs as fast as memory delivers.
func sum(words []uint64) uint64 {
	var s0, s1, s2, s3 uint64
	i := 0
	for ; i+3 < len(words); i += 4 {
		s0 += words[i]
		s1 += words[i+1]
		s2 += words[i+2]
		s3 += words[i+3]
	}
	for ; i < len(words); i++ {
		s0 += words[i]
	}
	return s0 + s1 + s2 + s3
}

// DecodeBytes is what one decode step at position pos reads from memory, at
// the least: every weight of m once (Model.WeightBytes) and the keys and
// values of the pos positions before it in the KV cache (KVCacheBytes).
func DecodeBytes(m *engine.Model, pos int) int64 {
	return m.WeightBytes() + m.KVCacheBytes(pos)
}

// BandwidthBound is the fastest a model can decode if every step must read
// bytesPerToken bytes from a memory that delivers bandwidth bytes per
// second: tokens per second = bandwidth / bytes per token.
func BandwidthBound(bandwidth float64, bytesPerToken int64) float64 {
	if bytesPerToken <= 0 {
		return 0
	}
	return bandwidth / float64(bytesPerToken)
}
