package projection

import (
	"math"
	"slices"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/models"
	"github.com/tokenbytoken/course/exercises/internal/check"
)

// TestTask1_SmallMatrix: logits = W_out · h on matrices small enough to
// multiply by hand. Every product and sum is exact in float32.
//
//grade:task 1 points 2
func TestTask1_SmallMatrix(t *testing.T) {
	defer check.Recover(t)
	cases := []struct {
		h, w  []float32
		vocab int
		want  []float32
	}{
		// Rows [1 0], [0 1], [1 1]: h's two numbers and their sum.
		{[]float32{1, 2}, []float32{1, 0, 0, 1, 1, 1}, 3, []float32{1, 2, 3}},
		// Rows [1 2 3] and [-4 0 2]: 2-2+1.5 = 1.5 and -8+0+1 = -7.
		{[]float32{2, -1, 0.5}, []float32{1, 2, 3, -4, 0, 2}, 2, []float32{1.5, -7}},
		// One token: a plain dot product.
		{[]float32{1, 1, 1, 1}, []float32{0.5, -1, 2, 3}, 1, []float32{4.5}},
	}
	for _, c := range cases {
		got := Project(c.h, c.w, c.vocab)
		if !slices.Equal(got, c.want) {
			t.Errorf("Project(h=%v, wOut=%v, vocab=%d) = %s; want %v", c.h, c.w, c.vocab, check.Vec(got), c.want)
		}
	}
}

// TestTask1_RowMajor: row i of W_out is token i's weights. A one-hot h
// (1 at index j) picks column j of every row; sizes that do not fit give
// nil; the inputs are left as they were.
//
//grade:task 1 points 1
func TestTask1_RowMajor(t *testing.T) {
	defer check.Recover(t)
	const vocab, d = 4, 3
	w := make([]float32, vocab*d)
	for i := range vocab {
		for j := range d {
			w[i*d+j] = float32(10*i + j) // row i, column j
		}
	}
	orig := slices.Clone(w)
	for j := range d {
		h := make([]float32, d)
		h[j] = 1
		got := Project(h, w, vocab)
		want := []float32{float32(j), float32(10 + j), float32(20 + j), float32(30 + j)}
		if !slices.Equal(got, want) {
			t.Errorf("Project(h=%v, wOut=%v, vocab=%d) = %s; want column %d of every row, %v", h, w, vocab, check.Vec(got), j, want)
		}
		if h[j] != 1 || !slices.Equal(w, orig) {
			t.Fatalf("Project changed its inputs: h = %s, wOut = %s", check.Vec(h), check.Vec(w))
		}
	}
	bad := []struct {
		h, w  []float32
		vocab int
	}{
		{[]float32{1, 2}, []float32{1, 2, 3, 4, 5}, 3},  // 5 weights, not 3 × 2
		{[]float32{1, 2}, []float32{1, 2, 3, 4}, 3},     // too few
		{nil, []float32{1, 2, 3}, 3},                    // no hidden state
		{[]float32{1, 2}, []float32{1, 2, 3, 4}, 0},     // no vocabulary
		{[]float32{1, 2, 3}, []float32{1, 2, 3, 4}, -1}, // negative vocabulary
	}
	for _, b := range bad {
		if got := Project(b.h, b.w, b.vocab); got != nil {
			t.Errorf("Project(h=%v, wOut of %d weights, vocab=%d) = %s; want nil (the sizes do not fit)", b.h, len(b.w), b.vocab, check.Vec(got))
		}
	}
}

// courseStep runs a prompt through the course's model one token at a time
// and returns, for the last step, the final hidden state h (after the final
// RMSNorm), the output matrix W_out and the model's own logits.
//
// The engine does not hand out h, so this uses the notebook's trick: a copy
// of the model whose W_out has the identity in its first d rows. Its first d
// logits are then exactly h (each is 1·h_i plus zeros).
func courseStep(t *testing.T) (h, wOut, logits []float32) {
	t.Helper()
	m, tok, err := models.Default()
	if err != nil {
		t.Fatalf("models.Default(): %v", err)
	}
	spy, _, err := models.Default()
	if err != nil {
		t.Fatalf("models.Default(): %v", err)
	}
	d, vocab := m.Config.Dim, m.Config.VocabSize
	if vocab < d {
		t.Fatalf("the course model has V = %d < d = %d; the identity trick needs V ≥ d", vocab, d)
	}
	identity := make([]float32, vocab*d)
	for i := range d {
		identity[i*d+i] = 1
	}
	// The spy's classifier becomes the identity; its embeddings stay as
	// they were.
	if spy.Matrices.Classifier, err = engine.NewMatrix(vocab, d, identity); err != nil {
		t.Fatalf("engine.NewMatrix(%d, %d, identity): %v", vocab, d, err)
	}

	ids, err := tok.Encode("func (b *Buffer) Len() int {\n\treturn", true, false)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	run := func(m *engine.Model) []float32 {
		st := m.NewState()
		var out []float32
		for pos, id := range ids {
			if out, err = st.Forward(id, pos); err != nil {
				t.Fatalf("Forward(%d, %d): %v", id, pos, err)
			}
		}
		return slices.Clone(out)
	}
	return run(spy)[:d], m.Weights().Classifier, run(m)
}

// TestTask1_CourseModel: applied to the course model's final hidden state
// and output matrix, Project gives the model's logits. The engine's kernel
// adds the d products in another order than a plain loop, so the two agree
// up to float32 rounding: here within 1e-4 × the largest logit.
//
//grade:task 1 points 2
func TestTask1_CourseModel(t *testing.T) {
	defer check.Recover(t)
	h, wOut, want := courseStep(t)
	d, vocab := len(h), len(want)
	got := Project(h, wOut, vocab)
	if len(got) != vocab {
		t.Fatalf("Project(h of %d numbers, the model's %d × %d W_out, vocab=%d) returned %d logits; want %d", d, vocab, d, vocab, len(got), vocab)
	}
	scale := 1.0
	for _, z := range want {
		scale = max(scale, math.Abs(float64(z)))
	}
	tol := 1e-4 * scale
	for i := range want {
		if diff := math.Abs(float64(got[i] - want[i])); !(diff <= tol) {
			t.Fatalf("Project on the course model: logit %d = %.6g; the model's is %.6g (difference %.3g, tolerance %.3g)", i, got[i], want[i], diff, tol)
		}
	}
	if a, b := decoding.Argmax(got), decoding.Argmax(want); a != b {
		t.Errorf("Project on the course model: most likely token %d; the model's is %d", a, b)
	}
}
