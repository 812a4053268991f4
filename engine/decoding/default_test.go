package decoding

import (
	"context"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
)

func TestDefaultModelsLoadAndGenerate(t *testing.T) {
	target, tok, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	draft, dtok, err := courseDraft()
	if err != nil {
		t.Fatal(err)
	}
	if target.Config.VocabSize != draft.Config.VocabSize || tok.VocabSize() != dtok.VocabSize() {
		t.Fatalf("target and draft must share one vocabulary: %d vs %d", target.Config.VocabSize, draft.Config.VocabSize)
	}
	if draft.Config.NumParams() >= target.Config.NumParams() {
		t.Errorf("draft (%d parameters) is not smaller than the target (%d)", draft.Config.NumParams(), target.Config.NumParams())
	}
	// Each call returns an independent copy.
	again, _, err := courseModel()
	if err != nil {
		t.Fatal(err)
	}
	again.Weights().RMSFinal[0] += 1
	if target.Weights().RMSFinal[0] == again.Weights().RMSFinal[0] {
		t.Error("two courseModel() models share their weights")
	}
	// The models have learned Go: real code is far more likely to them
	// than the same tokens in reverse order.
	const src = "func (b *Buffer) Len() int {\n\treturn len(b.buf) - b.off\n}\n\n// Reset resets the buffer to be empty.\nfunc (b *Buffer) Reset() {\n\tb.buf = b.buf[:0]\n\tb.off = 0\n}\n"
	ids, err := tok.Encode(src, true, false)
	if err != nil {
		t.Fatal(err)
	}
	reversed := []int{ids[0]}
	for i := len(ids) - 1; i > 0; i-- {
		reversed = append(reversed, ids[i])
	}
	for _, m := range []*engine.Model{target, draft} {
		real, shuffled := meanNLL(t, m, ids), meanNLL(t, m, reversed)
		if real > shuffled-1 {
			t.Errorf("%s: %.2f nats per token on Go code, %.2f on the reversed tokens; the model has not learned Go", m.Name, real, shuffled)
		}
	}

	// Generation from the default model runs and produces text.
	var sb strings.Builder
	for step, err := range Generate(context.Background(), target, tok, "func ", Options{MaxNewTokens: 40}) {
		if err != nil {
			t.Fatal(err)
		}
		sb.WriteString(step.Text)
	}
	if sb.Len() == 0 {
		t.Error("no text generated")
	}
	t.Logf("func %s", sb.String())
}

// meanNLL is the mean -ln p of each token after the ones before it.
func meanNLL(t *testing.T, m *engine.Model, ids []int) float64 {
	st := m.NewState()
	var sum float64
	for pos := 0; pos+1 < len(ids); pos++ {
		logits, err := st.Forward(ids[pos], pos)
		if err != nil {
			t.Fatal(err)
		}
		sum -= LogSoftmax(logits)[ids[pos+1]]
	}
	return sum / float64(len(ids)-1)
}
