package similar

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// randomItems returns n items with symbols drawn from the first m.
func randomItems(rng *rand.Rand, n, m int) []item {
	items := make([]item, n)
	for i := range items {
		items[i] = item{symbol(rng.IntN(m)), int32(i/5 + 1)}
	}
	return items
}

// TestKgramsRoll: every rolling hash equals the polynomial of its k
// symbols computed from scratch.
func TestKgramsRoll(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	items := randomItems(rng, 200, 1000)
	items[7].sym = named("len") // symbols with the top bit set roll too
	for _, k := range []int{1, 2, 5, 12, 200} {
		got := kgrams(items, k)
		if len(got) != len(items)-k+1 {
			t.Fatalf("k = %d: %d hashes of %d items; want %d", k, len(got), len(items), len(items)-k+1)
		}
		for i := range got {
			var h uint64
			for _, it := range items[i : i+k] {
				h = h*kgramBase + uint64(it.sym)
			}
			if got[i] != mix(h) {
				t.Fatalf("k = %d: hash %d = %#x; want %#x", k, i, got[i], mix(h))
			}
		}
	}
	if got := kgrams(items[:4], 5); got != nil {
		t.Errorf("kgrams of 4 items, k = 5 = %v; want none", got)
	}
}

// bruteWinnow is the definition of robust winnowing: in each window the
// rightmost smallest hash not to skip (or, if all are to skip, the
// rightmost smallest), each position once, skipped ones left out.
func bruteWinnow(h []uint64, w int, skip []bool) []int {
	if len(h) == 0 {
		return nil
	}
	w = min(w, len(h))
	picked := map[int]bool{}
	for start := 0; start+w <= len(h); start++ {
		at := -1
		for i := start; i < start+w; i++ {
			better := at < 0 || !skip[i] && skip[at] ||
				skip[i] == skip[at] && h[i] <= h[at]
			if better {
				at = i
			}
		}
		if !skip[at] {
			picked[at] = true
		}
	}
	var out []int
	for i := range h {
		if picked[i] {
			out = append(out, i)
		}
	}
	return out
}

func TestWinnowMatchesTheDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 2000 {
		n := rng.IntN(60)
		w := 1 + rng.IntN(10)
		h := make([]uint64, n)
		skip := make([]bool, n)
		for i := range h {
			h[i] = uint64(rng.IntN(1 + trial%8)) // few values: many ties
			skip[i] = trial%3 == 0 && rng.IntN(3) == 0
		}
		got, want := winnow(h, w, skip), bruteWinnow(h, w, skip)
		if !slices.Equal(got, want) {
			t.Fatalf("winnow(%v, %d, skip %v) = %v; want %v", h, w, skip, got, want)
		}
	}
}

// TestWinnowHandExample: the example of Schleimer, Wilkerson and Aiken's
// paper (figure 2), hashes of 5-grams with a window of 4, from which
// robust winnowing keeps 17 17 8 39 17.
func TestWinnowHandExample(t *testing.T) {
	h := []uint64{77, 74, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39, 77, 74, 42, 17, 98}
	var got []uint64
	for _, i := range winnow(h, 4, make([]bool, len(h))) {
		got = append(got, h[i])
	}
	if want := []uint64{17, 17, 8, 39, 17}; !slices.Equal(got, want) {
		t.Errorf("winnowing %v with windows of 4 keeps %v; want %v", h, got, want)
	}
}

// TestGuarantee: two random documents that share a run of Guarantee
// symbols, placed anywhere, always share a fingerprint; with the default
// parameters that is a run of K+W-1.
func TestGuarantee(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, p := range []params{defaults, {5, 4}, {1, 1}, {3, 10}} {
		run := p.k + p.w - 1
		for trial := range 300 {
			common := randomItems(rng, run, 50)
			a := slices.Concat(randomItems(rng, rng.IntN(100), 50), common, randomItems(rng, rng.IntN(100), 50))
			b := slices.Concat(randomItems(rng, rng.IntN(100), 50), common, randomItems(rng, rng.IntN(100), 50))
			fa, fb := winnowed(a, p), winnowed(b, p)
			if !shareAny(fa, fb) {
				t.Fatalf("k = %d, w = %d, trial %d: documents sharing a run of %d symbols share no fingerprint", p.k, p.w, trial, run)
			}
		}
	}
}

// TestGuaranteeAroundBase: when some k-grams of the shared run are base
// code, the documents still share a fingerprint, as long as one k-gram of
// the run is not.
func TestGuaranteeAroundBase(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	p := defaults
	run := p.k + p.w - 1
	for trial := range 1000 {
		common := randomItems(rng, run, 50)
		a := slices.Concat(randomItems(rng, rng.IntN(100), 50), common, randomItems(rng, rng.IntN(100), 50))
		b := slices.Concat(randomItems(rng, rng.IntN(100), 50), common, randomItems(rng, rng.IntN(100), 50))
		// All but one of the run's W k-grams, at random, are in the base.
		hs := kgrams(common, p.k)
		base := map[uint64]bool{}
		keep := rng.IntN(len(hs))
		for i, h := range hs {
			if i != keep && rng.IntN(4) > 0 || i != keep && trial%2 == 0 {
				base[h] = true
			}
		}
		fa, fb := winnowedWithout(a, p, base), winnowedWithout(b, p, base)
		if !shareAny(fa, fb) {
			t.Fatalf("trial %d: documents sharing a run of %d symbols, %d of whose %d k-grams are base code, share no fingerprint",
				trial, run, len(base), len(hs))
		}
	}
}

func winnowed(items []item, p params) map[uint64]bool {
	return winnowedWithout(items, p, nil)
}

// winnowedWithout returns the hashes winnowing selects, base ones skipped.
func winnowedWithout(items []item, p params, base map[uint64]bool) map[uint64]bool {
	h := kgrams(items, p.k)
	skip := make([]bool, len(h))
	for i := range h {
		skip[i] = base[h[i]]
	}
	out := map[uint64]bool{}
	for _, i := range winnow(h, p.w, skip) {
		out[h[i]] = true
	}
	return out
}

func shareAny(a, b map[uint64]bool) bool {
	for h := range a {
		if b[h] {
			return true
		}
	}
	return false
}

// TestDensity: winnowing keeps about 2/(W+1) of the hashes of random text,
// the density the paper derives.
func TestDensity(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	items := randomItems(rng, 100000, 1<<20)
	h := kgrams(items, K)
	kept := float64(len(winnow(h, W, make([]bool, len(h))))) / float64(len(h))
	if want := 2.0 / (W + 1); kept < 0.95*want || kept > 1.05*want {
		t.Errorf("winnowing kept %.4f of the hashes; want about 2/(W+1) = %.4f", kept, want)
	}
}

// TestLinearTime: fingerprinting eight times as much text takes about
// eight times as long, not sixty-four, also for text built to be hard: one long line,
// deep nesting, a hash sequence that rises (each window's minimum leaves
// at once), and bytes that are not Go.
func TestLinearTime(t *testing.T) {
	if testing.Short() {
		t.Skip("times large inputs")
	}
	inputs := map[string]func(n int) []byte{
		"Go code": func(n int) []byte {
			var b bytes.Buffer
			b.WriteString("package p\n")
			for i := 0; b.Len() < n; i++ {
				fmt.Fprintf(&b, "func f%d(x []int) int {\n\ts := 0\n\tfor i := range x {\n\t\ts += x[i] * %d\n\t}\n\treturn s\n}\n", i, i)
			}
			return b.Bytes()
		},
		"one line": func(n int) []byte { return []byte("package p; var x = " + strings.Repeat("a+", n/2) + "a") },
		"nesting":  func(n int) []byte { return []byte("package p\nvar x = " + strings.Repeat("(", n)) },
		"rising":   func(n int) []byte { return []byte(strings.Repeat("x ", n/2)) },
		"junk": func(n int) []byte {
			rng := rand.New(rand.NewPCG(9, 10))
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			return b
		},
	}
	for name, gen := range inputs {
		small, large := gen(1<<14), gen(1<<17)
		ts, tl := fastest(small), fastest(large)
		// Quadratic work would take 64 times as long; the margin is for
		// caches and a busy machine.
		ratio := float64(tl) / float64(ts)
		t.Logf("%s: %d bytes in %v, %d bytes in %v", name, len(small), ts, len(large), tl)
		if ratio > 32 {
			t.Errorf("%s: %d bytes took %v, %d bytes %v: %.1f times as long for 8 times the input",
				name, len(small), ts, len(large), tl, ratio)
		}
	}
}

// fastest returns the shortest of five times to fingerprint src.
func fastest(src []byte) time.Duration {
	best := time.Duration(1 << 62)
	for range 5 {
		start := time.Now()
		Of(map[string][]byte{"x.go": src}, nil)
		best = min(best, time.Since(start))
	}
	return best
}
