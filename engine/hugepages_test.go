package engine

import "testing"

// TestWeightSliceIsZerosOfTheLengthAsked covers sizes around the 2 MB
// pages the kernel is asked for, where the advice covers none, one or
// several whole pages inside the slice: each slice must be n zeros, and
// writable end to end.
func TestWeightSliceIsZerosOfTheLengthAsked(t *testing.T) {
	const page = 2 << 20 // bytes
	for _, n := range []int64{0, 1, page/4 - 1, page / 4, page/4 + 1, page/2 + 3, 3*page/4 + 5} {
		s := weightSlice(n)
		if int64(len(s)) != n {
			t.Fatalf("weightSlice(%d) has %d numbers", n, len(s))
		}
		for i, v := range s {
			if v != 0 {
				t.Fatalf("weightSlice(%d)[%d] = %v, want 0", n, i, v)
			}
			s[i] = float32(i)
		}
		for i, v := range s {
			if v != float32(i) {
				t.Fatalf("weightSlice(%d)[%d] = %v after writing %d", n, i, v, i)
			}
		}
	}
}
