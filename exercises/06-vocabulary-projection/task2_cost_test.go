package projection

import (
	"slices"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestTask2_CourseFigures: d = 4096 and V = 50,000 (the lesson's example)
// make about 200 million multiply-adds per step, and W_out is about 400 MB
// in 16-bit floats; the course's own model (d = 192, V = 2048) for scale.
//
//grade:task 2 points 2
func TestTask2_CourseFigures(t *testing.T) {
	defer check.Recover(t)
	cases := []struct {
		d, vocab           int
		macs, flops        int64
		bytes1, bytes2, b4 int64 // bytes at 1, 2 and 4 bytes per weight
	}{
		{4096, 50000, 204_800_000, 409_600_000, 204_800_000, 409_600_000, 819_200_000},
		{192, 2048, 393_216, 786_432, 393_216, 786_432, 1_572_864},
		{1, 1, 1, 2, 1, 2, 4},
	}
	for _, c := range cases {
		if got := ProjectionMACs(c.d, c.vocab); got != c.macs {
			t.Errorf("ProjectionMACs(%d, %d) = %d; want %d", c.d, c.vocab, got, c.macs)
		}
		if got := ProjectionFLOPs(c.d, c.vocab); got != c.flops {
			t.Errorf("ProjectionFLOPs(%d, %d) = %d; want %d (2 per multiply-add)", c.d, c.vocab, got, c.flops)
		}
		want := []int64{c.bytes1, c.bytes2, c.b4}
		got := []int64{ProjectionBytes(c.d, c.vocab, 1), ProjectionBytes(c.d, c.vocab, 2), ProjectionBytes(c.d, c.vocab, 4)}
		if !slices.Equal(got, want) {
			t.Errorf("ProjectionBytes(%d, %d, b) for b = 1, 2, 4 bytes per weight = %s; want %s", c.d, c.vocab, check.Vec(got), check.Vec(want))
		}
	}
}

// TestTask2_MatchesEngine: the engine counts the vocabulary part of a step
// (engine.Config.PartCost) as ProjectionFLOPs, and its bytes as W_out in
// float32 plus reading h and writing the logits, 4·(d + V).
//
//grade:task 2 points 1
func TestTask2_MatchesEngine(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 4)
	defer fails.Close()
	for _, s := range testShapes(t) {
		c := s.c
		want := c.PartCost(engine.PartVocab, 1, 100, 1)
		if got := ProjectionFLOPs(c.Dim, c.VocabSize); got != want.FLOPs {
			fails.Errorf("%s: ProjectionFLOPs(%d, %d) = %d; the engine counts %d", s.name, c.Dim, c.VocabSize, got, want.FLOPs)
		}
		weights := want.Bytes - 4*int64(c.Dim+c.VocabSize)
		if got := ProjectionBytes(c.Dim, c.VocabSize, 4); got != weights {
			fails.Errorf("%s: ProjectionBytes(%d, %d, 4) = %d; the engine reads %d bytes of float32 weights", s.name, c.Dim, c.VocabSize, got, weights)
		}
	}
}

// TestTask2_Tied: tying the output matrix to the embedding saves V·d
// parameters, as the engine's parameter count of the course model shows.
//
//grade:task 2 points 1
func TestTask2_Tied(t *testing.T) {
	defer check.Recover(t)
	if got := EmbeddingParams(4096, 50000, true); got != 204_800_000 {
		t.Errorf("EmbeddingParams(4096, 50000, tied) = %d; want 204800000 (one V × d matrix)", got)
	}
	if got := EmbeddingParams(4096, 50000, false); got != 409_600_000 {
		t.Errorf("EmbeddingParams(4096, 50000, untied) = %d; want 409600000 (two V × d matrices)", got)
	}
	m, _, err := models.Default()
	if err != nil {
		t.Fatalf("models.Default(): %v", err)
	}
	shared, separate := m.Config, m.Config
	shared.SharedClassifier, separate.SharedClassifier = true, false
	d, vocab := m.Config.Dim, m.Config.VocabSize
	saved := separate.NumParams() - shared.NumParams()
	got := EmbeddingParams(d, vocab, false) - EmbeddingParams(d, vocab, true)
	if got != saved {
		t.Errorf("course model (d = %d, V = %d): EmbeddingParams untied − tied = %d; the engine's parameter counts differ by %d",
			d, vocab, got, saved)
	}
}
