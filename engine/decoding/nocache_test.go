package decoding

import (
	"runtime"
	"testing"

	"github.com/tokenbytoken/course/engine"
)

// greedyByForward is the plain decode loop: one Forward per position, the
// highest logit each time. The reference test checks this path against the
// published stories260K text.
func greedyByForward(t *testing.T, m *engine.Model, prompt []int, n int, isEnd func(int) bool) []int {
	st := m.NewState()
	var out []int
	seq := append([]int(nil), prompt...)
	for pos := 0; len(out) < n && pos < m.Config.SeqLen; pos++ {
		logits, err := st.Forward(seq[pos], pos)
		if err != nil {
			t.Fatal(err)
		}
		if pos < len(seq)-1 {
			continue
		}
		next := Argmax(logits)
		out = append(out, next)
		if isEnd(next) {
			break
		}
		seq = append(seq, next)
	}
	return out
}

func collect(t *testing.T, seq func(func(int, error) bool)) []int {
	t.Helper()
	var out []int
	for id, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

func sameTokens(t *testing.T, what string, got, want []int) {
	t.Helper()
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("%s: token %d is %d, want %d (got %v, want %v)", what, i, got[i], want[i], got, want)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d tokens, want %d", what, len(got), len(want))
	}
}

func TestNoCacheGreedyMatchesCached(t *testing.T) {
	m, tok := loadReference(t)
	prompt, err := tok.Encode("Once upon a time", true, false)
	if err != nil {
		t.Fatal(err)
	}
	const n = 120
	want := greedyByForward(t, m, prompt, n, tok.IsEnd)

	nc := engine.NewNoCacheLM(m)
	got := collect(t, sampleLoop(nc, prompt, n, Argmax, tok.IsEnd))
	sameTokens(t, "without cache", got, want)

	cached := engine.NewModelLM(m, 1)
	got = collect(t, sampleLoop(cached, prompt, n, Argmax, tok.IsEnd))
	sameTokens(t, "cached, through ModelLM", got, want)

	// The price of having no cache: step k recomputes all len(prompt)+k-1
	// positions, where the cached path computes one.
	var recomputed int64
	for k := range len(want) {
		recomputed += int64(len(prompt) + k)
	}
	if nc.Positions != recomputed || cached.Positions != int64(len(prompt)+len(want)-1) {
		t.Errorf("positions computed: without cache %d (want %d), with cache %d (want %d)",
			nc.Positions, recomputed, cached.Positions, len(prompt)+len(want)-1)
	}
}

func TestKVCacheBytesMeasured(t *testing.T) {
	for _, c := range []engine.Config{
		{Dim: 64, HiddenDim: 172, NLayers: 5, NHeads: 8, NKVHeads: 4, VocabSize: 512, SeqLen: 512},
		{Dim: 288, HiddenDim: 768, NLayers: 6, NHeads: 6, NKVHeads: 6, VocabSize: 32000, SeqLen: 256},
	} {
		formula := engine.KVCacheBytes(c, c.SeqLen)
		var kv *engine.KVCache
		runtime.GC()
		var err error
		measured := engine.AllocatedBytes(func() { kv, err = engine.NewKVCache(c) })
		if err != nil {
			t.Fatal(err)
		}
		if kv.Bytes() != formula {
			t.Errorf("%v: cache holds %d bytes, formula says %d", c, kv.Bytes(), formula)
		}
		// The runtime rounds large allocations up to whole 8 KiB pages.
		if measured < uint64(formula) || measured > uint64(formula)+2*8192+1024 {
			t.Errorf("%v: allocating the cache took %d bytes, formula says %d", c, measured, formula)
		}
	}
}
