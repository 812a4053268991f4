package projection

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/exercises/internal/check"
)

// namedShape is a model shape for the engine, with a name for messages.
type namedShape struct {
	name string
	c    engine.Config
}

// testShapes are the course's model and the published shapes of a few
// open models, counted as the engine's Llama block.
func testShapes(t *testing.T) []namedShape {
	t.Helper()
	m, _, err := models.Default()
	if err != nil {
		t.Fatalf("models.Default(): %v", err)
	}
	return []namedShape{
		{"the course's model", m.Config},
		{"a tiny shape", engine.Config{Dim: 8, HiddenDim: 16, NLayers: 2, NHeads: 2, NKVHeads: 1, VocabSize: 100, SeqLen: 16}},
		{"TinyLlama 1.1B", engine.Config{Dim: 2048, HiddenDim: 5632, NLayers: 22, NHeads: 32, NKVHeads: 4, VocabSize: 32000, SeqLen: 2048}},
		{"Llama 2 7B", engine.Config{Dim: 4096, HiddenDim: 11008, NLayers: 32, NHeads: 32, NKVHeads: 32, VocabSize: 32000, SeqLen: 4096}},
		{"Llama 2 7B body, V = 50,000", engine.Config{Dim: 4096, HiddenDim: 11008, NLayers: 32, NHeads: 32, NKVHeads: 32, VocabSize: 50000, SeqLen: 4096}},
		{"Llama 3 8B", engine.Config{Dim: 4096, HiddenDim: 14336, NLayers: 32, NHeads: 32, NKVHeads: 8, VocabSize: 128256, SeqLen: 8192}},
	}
}

// String names the shape and gives the sizes the counts depend on.
func (s namedShape) String() string {
	c := s.c
	return fmt.Sprintf("%s (d %d, hidden %d, %d layers, %d heads, %d KV heads, V %d)", s.name, c.Dim, c.HiddenDim, c.NLayers, c.NHeads, c.NKVHeads, c.VocabSize)
}

// shapeOf copies the fields of an engine Config that a Shape has.
func shapeOf(c engine.Config) Shape {
	return Shape{Dim: c.Dim, HiddenDim: c.HiddenDim, NLayers: c.NLayers, NHeads: c.NHeads, NKVHeads: c.NKVHeads, VocabSize: c.VocabSize}
}

// testPositions are the positions the tests price a step at.
var testPositions = []int{0, 1, 100, 4095}

// TestTask3_HandShape: a shape small enough to count by hand. Dim 8,
// HiddenDim 16, 2 layers, 2 query heads sharing 1 key/value head (head
// size 4, kvDim 4), V = 100, at position 3 (a context of 4 positions).
// Per layer, attention: projections 2·(64 + 32 + 32 + 64) = 384, rotary
// 6·(8 + 4)/2 = 36, scores and values 4·2·(4·4 + 5) = 168, so 588, and
// 1176 for both layers. MLP: 2·3·8·16 + 6·16 = 864 per layer, 1728. Norms
// 4·8·(2·2 + 1) = 160. Projection 2·8·100 = 1600. Step: 4664.
//
//grade:task 3 points 2
func TestTask3_HandShape(t *testing.T) {
	defer check.Recover(t)
	s := Shape{Dim: 8, HiddenDim: 16, NLayers: 2, NHeads: 2, NKVHeads: 1, VocabSize: 100}
	if got := AttentionFLOPs(s, 3); got != 1176 {
		t.Errorf("AttentionFLOPs(%+v, 3) = %d; want 1176 (2 layers × (384 projections + 36 rotary + 168 over the context))", s, got)
	}
	if got := AttentionFLOPs(s, 0); got != 1176-2*3*42 {
		t.Errorf("AttentionFLOPs(%+v, 0) = %d; want %d (a context of 1 position, not 4)", s, got, 1176-2*3*42)
	}
	if got := MLPFLOPs(s); got != 1728 {
		t.Errorf("MLPFLOPs(%+v) = %d; want 1728 (2 layers × (768 for three matrices + 96 for SwiGLU))", s, got)
	}
	if got := StepFLOPs(s, 3); got != 4664 {
		t.Errorf("StepFLOPs(%+v, 3) = %d; want 4664 (160 norms + 1176 attention + 1728 MLP + 1600 projection)", s, got)
	}
	if got, want := ProjectionShare(s, 3), 1600.0/4664; math.Abs(got-want) > 1e-12 {
		t.Errorf("ProjectionShare(%+v, 3) = %.6g; want 1600/4664 = %.6g", s, got, want)
	}
}

// TestTask3_PartsMatchEngine: AttentionFLOPs and MLPFLOPs count exactly what
// the engine's Config.PartCost counts, on the course's model and published
// shapes, at several positions.
//
//grade:task 3 points 2
func TestTask3_PartsMatchEngine(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for _, s := range testShapes(t) {
		var got, want []int64
		for _, pos := range testPositions {
			got = append(got, AttentionFLOPs(shapeOf(s.c), pos))
			want = append(want, s.c.PartCost(engine.PartAttention, 1, pos, 1).FLOPs)
		}
		if !slices.Equal(got, want) {
			fails.Errorf("%s: AttentionFLOPs at positions %v = %s; the engine counts %s", s, testPositions, check.Vec(got), check.Vec(want))
		}
		if got, want := MLPFLOPs(shapeOf(s.c)), s.c.PartCost(engine.PartMLP, 1, 0, 1).FLOPs; got != want {
			fails.Errorf("%s: MLPFLOPs = %d; the engine counts %d", s, got, want)
		}
	}
}

// engineStep is the engine's count of one decode step at pos, all parts.
func engineStep(c engine.Config, pos int) int64 {
	var total int64
	for _, part := range c.StepCost(pos) {
		total += part.FLOPs
	}
	return total
}

// TestTask3_StepMatchesEngine: StepFLOPs is the sum of the engine's five
// parts (engine.Config.StepCost).
//
//grade:task 3 points 1
func TestTask3_StepMatchesEngine(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for _, s := range testShapes(t) {
		var got, want []int64
		for _, pos := range testPositions {
			got = append(got, StepFLOPs(shapeOf(s.c), pos))
			want = append(want, engineStep(s.c, pos))
		}
		if !slices.Equal(got, want) {
			fails.Errorf("%s: StepFLOPs at positions %v = %s; the engine counts %s", s, testPositions, check.Vec(got), check.Vec(want))
		}
	}
}

// TestTask3_Share: the projection's share of a step agrees with the
// engine's figures, and is far larger in the course's small model than in
// the d = 4096, V = 50,000 example.
//
//grade:task 3 points 1
func TestTask3_Share(t *testing.T) {
	defer check.Recover(t)
	shares := map[string]float64{}
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for _, s := range testShapes(t) {
		var got, want []float64
		wrong := false
		for _, pos := range testPositions {
			w := float64(s.c.PartCost(engine.PartVocab, 1, pos, 1).FLOPs) / float64(engineStep(s.c, pos))
			g := ProjectionShare(shapeOf(s.c), pos)
			if math.Abs(g-w) > 1e-12 {
				wrong = true
			}
			if pos == 100 {
				shares[s.name] = g
			}
			got, want = append(got, g), append(want, w)
		}
		if wrong {
			fails.Errorf("%s: ProjectionShare at positions %v = %s; the engine's figures give %s", s, testPositions, check.Vec(got), check.Vec(want))
		}
	}
	small, big := shares["the course's model"], shares["Llama 2 7B body, V = 50,000"]
	if !(small > 3*big) {
		t.Errorf("ProjectionShare at position 100: %.3g for the course's model, %.3g for d = 4096, V = 50,000; want the small model's share several times larger", small, big)
	}
}
