package experiment

import (
	"math"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
	"github.com/tokenbytoken/course/engine/models"
)

func TestProfileDecodeAndShares(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := tok.Encode("func", true, false)
	prof := ProfileDecode(m, ids, 7)
	if prof.Tokens != 7 {
		t.Errorf("ProfileDecode(…, 7) ran %d positions", prof.Tokens)
	}
	parts, flops, bytes, times := PartShares(prof)
	if len(parts) != int(engine.NumParts) || parts[engine.PartVocab] != "vocab" {
		t.Fatalf("parts %v", parts)
	}
	for _, shares := range [][]float64{flops, bytes, times} {
		sum := 0.0
		for _, s := range shares {
			sum += s
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("shares %v add up to %v, not 1", shares, sum)
		}
	}
	// The vocabulary part is the same every step: its share of the FLOPs
	// is V·d·2 per step over the steps' total.
	want := float64(7*2*m.Config.VocabSize*m.Config.Dim) / float64(prof.Total().FLOPs)
	if math.Abs(flops[engine.PartVocab]-want) > 1e-9 {
		t.Errorf("vocabulary share %v, want %v", flops[engine.PartVocab], want)
	}
}

func TestVocabShare(t *testing.T) {
	// The tiny shape of kvcache_test.go: 80 of 508 FLOPs at position 0.
	if got := VocabShare(tiny, 0); math.Abs(got-80.0/508) > 1e-12 {
		t.Errorf("VocabShare(tiny, 0) = %v, want 80/508", got)
	}
}

func TestGoSourceAndCountTokens(t *testing.T) {
	texts, err := GoSource([]string{"bytes/buffer.go", "sort/sort.go"}, 500)
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) != 2 || len(texts[0]) != 500 || strings.HasPrefix(texts[0], "\n") {
		t.Errorf("want two excerpts of 500 bytes starting a line, got %d: %q…", len(texts), texts[0][:min(40, len(texts[0]))])
	}
	if _, err := GoSource([]string{"no/such.go"}, 10); err == nil {
		t.Error("a missing file: want an error")
	}
	_, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := tok.Encode("func main() {}", false, false)
	b, n := CountTokens(tok, []string{"func main() {}", "func main() {}"})
	if b != 28 || n != 2*len(ids) {
		t.Errorf("CountTokens = %d bytes, %d tokens; want 28, %d", b, n, 2*len(ids))
	}
}

func TestTopMassAndBelow(t *testing.T) {
	dists := [][]float64{{0.5, 0.3, 0.2}, {0.1, 0.1, 0.8}}
	// Top 1: (0.5 + 0.8)/2; top 2: (0.8 + 0.9)/2; top 5: all of it.
	got := AverageTopMass(dists, []int{1, 2, 5})
	for i, want := range []float64{0.65, 0.85, 1} {
		if math.Abs(got[i]-want) > 1e-12 {
			t.Errorf("AverageTopMass = %v, want [0.65 0.85 1]", got)
			break
		}
	}
	if got := AverageBelow(dists, 0.25); got != 1.5 {
		t.Errorf("AverageBelow(…, 0.25) = %v, want (1 + 2)/2", got)
	}
}

func TestSampledDistributions(t *testing.T) {
	m, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	a := SampledDistributions(m, tok, "func", 5, 3)
	b := SampledDistributions(m, tok, "func", 5, 3)
	if len(a) != 5 || len(a[0]) != m.Config.VocabSize {
		t.Fatalf("%d distributions", len(a))
	}
	for i := range a {
		sum := 0.0
		for j, v := range a[i] {
			sum += v
			if v != b[i][j] {
				t.Fatal("the same seed gave different distributions")
			}
		}
		if math.Abs(sum-1) > 1e-6 {
			t.Errorf("step %d sums to %v", i, sum)
		}
	}
	// The first is the model's distribution after the prompt.
	_, logits := NextLogits(m, tok, "func")
	if p := decoding.Softmax(logits); LargestDifference(toFloat32(p), toFloat32(a[0])) > 1e-6 {
		t.Error("the first distribution is not the one after the prompt")
	}
}

func toFloat32(xs []float64) []float32 {
	out := make([]float32, len(xs))
	for i, x := range xs {
		out[i] = float32(x)
	}
	return out
}

func TestStoredStepBytesFloat32(t *testing.T) {
	m, _, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	c := m.Config
	d, h, kv, L, V := int64(c.Dim), int64(c.HiddenDim), int64(c.KVDim()), int64(c.NLayers), int64(c.VocabSize)
	got := StoredStepBytes(m)
	want := [engine.NumParts]int64{
		engine.PartEmbedding: 4 * d,
		engine.PartNorm:      4 * (2*L + 1) * d,
		engine.PartAttention: 4 * L * (d*d + kv*d + kv*d + d*d),
		engine.PartMLP:       4 * L * (h*d + d*h + h*d),
		engine.PartVocab:     4 * V * d,
	}
	if got != want {
		t.Errorf("StoredStepBytes(default model) = %v, want %v", got, want)
	}
}

func TestStoredStepBytesSmolLM2(t *testing.T) {
	testmodel.Path(t, testmodel.SmolLM2)
	m, _, err := models.SmolLM2()
	if err != nil {
		t.Fatal(err)
	}
	got := StoredStepBytes(m)
	// The file's token_embd.weight is Q8_0 (blocks of 32 numbers: 32 int8
	// and an f16 scale) and is also the output projection.
	V, d := int64(m.Config.VocabSize), int64(m.Config.Dim)
	if want := V * d / 32 * 34; got[engine.PartVocab] != want {
		t.Errorf("vocabulary projection reads %d bytes, want Q8_0's %d", got[engine.PartVocab], want)
	}
	if got[engine.PartEmbedding] != d/32*34 {
		t.Errorf("embedding row %d bytes, want %d", got[engine.PartEmbedding], d/32*34)
	}
	// Every weight is read once per step, the tied matrix once, and the
	// embedding only a row of it.
	sum := got[engine.PartNorm] + got[engine.PartAttention] + got[engine.PartMLP] + got[engine.PartVocab]
	if sum != m.WeightBytes() {
		t.Errorf("the parts but the embedding add up to %d bytes; the model's weights are %d", sum, m.WeightBytes())
	}
}
