package kvcache

import (
	"context"
	"slices"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestTask4_MatchesEngine: CacheBytes with 4-byte values is the engine's
// engine.KVCacheBytes, for the course's two models (and the cache the
// engine really allocates for them) and for published shapes with and
// without grouped-query attention.
//
//grade:task 4 points 2
func TestTask4_MatchesEngine(t *testing.T) {
	defer check.Recover(t)
	target, _, err := models.Default()
	if err != nil {
		t.Fatalf("models.Default(): %v", err)
	}
	draft, _, err := models.Draft()
	if err != nil {
		t.Fatalf("models.Draft(): %v", err)
	}
	shapes := []struct {
		name string
		c    engine.Config
	}{
		{"the course's model", target.Config},
		{"the course's draft model", draft.Config},
		{"Llama 2 7B (no GQA)", engine.Config{Dim: 4096, HiddenDim: 11008, NLayers: 32, NHeads: 32, NKVHeads: 32, VocabSize: 32000, SeqLen: 4096}},
		{"Llama 2 70B (8 KV heads)", engine.Config{Dim: 8192, HiddenDim: 28672, NLayers: 80, NHeads: 64, NKVHeads: 8, VocabSize: 32000, SeqLen: 4096}},
		{"Llama 3 8B (8 KV heads)", engine.Config{Dim: 4096, HiddenDim: 14336, NLayers: 32, NHeads: 32, NKVHeads: 8, VocabSize: 128256, SeqLen: 8192}},
	}
	for _, s := range shapes {
		c := s.c
		var got, want []int64
		positions := []int{1, 100, c.SeqLen}
		for _, pos := range positions {
			got = append(got, CacheBytes(c.NLayers, c.NKVHeads, c.HeadSize(), pos, 4))
			want = append(want, engine.KVCacheBytes(c, pos))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: CacheBytes(%d layers, %d KV heads, head %d, n positions, 4 bytes) for n = %v = %s; engine.KVCacheBytes gives %s",
				s.name, c.NLayers, c.NKVHeads, c.HeadSize(), positions, check.Vec(got), check.Vec(want))
		}
	}
	for _, m := range []*engine.Model{target, draft} {
		c := m.Config
		got := CacheBytes(c.NLayers, c.NKVHeads, c.HeadSize(), c.SeqLen, 4)
		kv, err := engine.NewKVCache(c)
		if err != nil {
			t.Fatal(err)
		}
		if want := kv.Bytes(); got != want {
			t.Errorf("%s: CacheBytes for its whole context of %d = %d; the engine's cache holds %d bytes", m.Name, c.SeqLen, got, want)
		}
	}
}

// TestTask4_BigShapes: 16-bit caches of one sequence for large models: a
// Llama-2-7B-like shape at 4096 tokens is 2 GiB; 8 KV heads instead of 32
// make a quarter; the lesson's checkpoint shape (40 layers, 8 of 40 heads)
// at 32,000 tokens is about 5.2 GB, five times that without GQA.
//
//grade:task 4 points 1
func TestTask4_BigShapes(t *testing.T) {
	defer check.Recover(t)
	cases := []struct {
		name                                  string
		layers, kvHeads, hs, positions, bytes int
		want                                  int64
	}{
		{"Llama 2 7B, 4096 tokens", 32, 32, 128, 4096, 2, 2 << 30},
		{"Llama 3 8B, 8192 tokens", 32, 8, 128, 8192, 2, 1 << 30},
		{"Llama 3.1 8B, 131072 tokens", 32, 8, 128, 131072, 2, 16 << 30},
		{"40 layers, 8 KV heads, 32,000 tokens", 40, 8, 128, 32000, 2, 5_242_880_000},
		{"40 layers, 40 KV heads, 32,000 tokens", 40, 40, 128, 32000, 2, 26_214_400_000},
		{"one number", 1, 1, 1, 1, 1, 2},
	}
	for _, c := range cases {
		if got := CacheBytes(c.layers, c.kvHeads, c.hs, c.positions, c.bytes); got != c.want {
			t.Errorf("%s: CacheBytes(%d, %d, %d, %d, %d) = %d; want %d", c.name, c.layers, c.kvHeads, c.hs, c.positions, c.bytes, got, c.want)
		}
	}
}

// TestTask4_Positions: positions run through the model to generate n
// tokens, by hand and as the engine counts them: greedy generation with
// engine.NewNoCacheLM and engine.NewModelLM, whose Positions fields count
// exactly this.
//
//grade:task 4 points 1
func TestTask4_Positions(t *testing.T) {
	defer check.Recover(t)
	cases := []struct {
		prompt, n        int
		uncached, cached int64
	}{
		{1, 1, 1, 1},
		{1, 10, 55, 10},
		{1, 1000, 500_500, 1000},
		{5, 3, 18, 7}, // 5 + 6 + 7 without, 5 + 1 + 1 with
		{5, 0, 0, 0},
	}
	for _, c := range cases {
		if got := UncachedPositions(c.prompt, c.n); got != c.uncached {
			t.Errorf("UncachedPositions(prompt %d, %d tokens) = %d; want %d", c.prompt, c.n, got, c.uncached)
		}
		if got := CachedPositions(c.prompt, c.n); got != c.cached {
			t.Errorf("CachedPositions(prompt %d, %d tokens) = %d; want %d", c.prompt, c.n, got, c.cached)
		}
	}

	m, tok, err := models.Default()
	if err != nil {
		t.Fatalf("models.Default(): %v", err)
	}
	ids, err := tok.Encode("func main() {", true, false)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	const n = 12
	uncached, cached := engine.NewNoCacheLM(m), engine.NewModelLM(m, 1)
	for _, lm := range []decoding.LM{uncached, cached} {
		for _, err := range decoding.Decode(context.Background(), lm, ids, decoding.Options{MaxNewTokens: n}) {
			if err != nil {
				t.Fatalf("decoding.Decode: %v", err)
			}
		}
	}
	if got := UncachedPositions(len(ids), n); got != uncached.Positions {
		t.Errorf("UncachedPositions(prompt %d, %d tokens) = %d; the engine without a cache ran %d positions", len(ids), n, got, uncached.Positions)
	}
	if got := CachedPositions(len(ids), n); got != cached.Positions {
		t.Errorf("CachedPositions(prompt %d, %d tokens) = %d; the engine with a cache ran %d positions", len(ids), n, got, cached.Positions)
	}
}
