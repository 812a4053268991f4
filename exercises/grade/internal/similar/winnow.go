package similar

// kgramBase is the multiplier of the rolling hash: odd, so that multiplying
// by it is a bijection modulo 2⁶⁴ and no symbol's contribution is lost.
const kgramBase = 0x9e3779b97f4a7c15

// kgrams returns the hash of every run of k consecutive symbols of items,
// len(items)-k+1 of them (none when there are fewer than k items), in
// linear time: each hash is the previous one with a symbol taken off the
// front and one added at the back.
func kgrams(items []item, k int) []uint64 {
	if k < 1 || len(items) < k {
		return nil
	}
	// top is kgramBase^(k-1), the weight of the symbol leaving the window.
	top := uint64(1)
	for range k - 1 {
		top *= kgramBase
	}
	out := make([]uint64, 0, len(items)-k+1)
	var h uint64
	for i, it := range items {
		if i >= k {
			h -= uint64(items[i-k].sym) * top
		}
		h = h*kgramBase + uint64(it.sym)
		if i >= k-1 {
			out = append(out, mix(h))
		}
	}
	return out
}

// mix scrambles the bits of a polynomial hash (the finaliser of
// SplitMix64), so that which hash of a window is smallest does not depend
// on a few symbols' low bits.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// winnow returns the positions of the hashes that robust winnowing selects
// with windows of w: in every run of w consecutive hashes, the smallest,
// the rightmost of equal smallest ones; each position once, in increasing
// order. Any run of w hashes therefore contains a selected one, and two
// documents that share such a run select the same hash in it.
//
// Positions where skip is true are never selected while the window holds
// another hash, and are then left out of the result: they are the code
// everyone was given, and a window should pick what is left.
//
// A sequence shorter than one window is one window. The work is at most w
// steps per hash.
func winnow(h []uint64, w int, skip []bool) []int {
	if len(h) == 0 {
		return nil
	}
	w = min(max(w, 1), len(h))
	// less orders positions by hash with skipped ones last; rightmost wins
	// ties because the scans below replace the minimum on equality.
	lessEq := func(i, j int) bool {
		if skip[i] != skip[j] {
			return !skip[i]
		}
		return h[i] <= h[j]
	}
	var out []int
	record := func(i int) {
		if !skip[i] {
			out = append(out, i)
		}
	}
	at := -1 // the position selected in the current window
	for end := w - 1; end < len(h); end++ {
		start := end - w + 1
		switch {
		case at < start:
			// The minimum left the window: find the new one.
			at = start
			for i := start + 1; i <= end; i++ {
				if lessEq(i, at) {
					at = i
				}
			}
			record(at)
		case lessEq(end, at):
			at = end
			record(at)
		}
	}
	return out
}
