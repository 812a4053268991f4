package engine

import (
	"math"
	"slices"
	"testing"
)

// TestModelLMRowsMatchForward: whatever ModelLM runs in one pass and what
// it splits off into a pass without logits, every row it returns is the
// model's own next-token logits at that position, as the step-by-step
// forward pass (State.Forward) computes them.
func TestModelLMRowsMatchForward(t *testing.T) {
	m, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	seq, err := tok.Encode("func (b *Buffer) Len() int { return len(b.buf) }", true, false)
	if err != nil {
		t.Fatal(err)
	}
	st := m.NewState()
	want := make([][]float32, len(seq)) // want[i]: the logits after seq[:i+1]
	for i, id := range seq {
		logits, err := st.Forward(id, i)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = slices.Clone(logits)
	}
	lm := NewModelLM(m, 1)
	for _, q := range []struct{ length, n int }{
		{len(seq) - 4, 1}, // a prompt, only its last row asked for
		{len(seq) - 2, 3}, // two new tokens and one reused
		{len(seq), 5},     // more rows than new tokens
		{6, 6},            // cut back, every row
		{len(seq), 2},     // grown again: tokens before the rows asked for
	} {
		rows, err := lm.NextLogits(seq[:q.length], q.n)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != q.n {
			t.Fatalf("NextLogits(%d tokens, %d): %d rows", q.length, q.n, len(rows))
		}
		for i, row := range rows {
			pos := q.length - q.n + i
			var worst float64
			for j := range row {
				worst = max(worst, math.Abs(float64(row[j]-want[pos][j])))
			}
			// The batched pass sums in another order than the step.
			if worst > 1e-3 || argmax(row) != argmax(want[pos]) {
				t.Errorf("NextLogits(%d tokens, %d) row %d (position %d): differs from Forward by %g, argmax %d against %d", q.length, q.n, i, pos, worst, argmax(row), argmax(want[pos]))
			}
		}
	}
	if lm.Passes != 5 {
		t.Errorf("%d passes counted for 5 questions", lm.Passes)
	}
}
