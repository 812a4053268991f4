package train

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

// trainedTiny trains a tokenizer and a tiny model on sampleGo.
func trainedTiny(t *testing.T) (*engine.Model, *engine.Tokenizer) {
	t.Helper()
	tok, err := TrainTokenizer([]string{sampleGo}, 300)
	if err != nil {
		t.Fatal(err)
	}
	enc := NewEncoder(tok)
	stream, err := enc.EncodeDocuments([]string{sampleGo, sampleGo})
	if err != nil {
		t.Fatal(err)
	}
	cfg := tinyTrainConfig(150)
	cfg.Model.VocabSize = tok.VocabSize()
	cfg.Model.SeqLen = 32
	st, err := Train(context.Background(), cfg, &Data{Train: stream, Val: stream}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.Params.Model()
	if err != nil {
		t.Fatal(err)
	}
	return m, tok
}

// TestEvaluateMatchesEngine checks Evaluate against the definition: the
// sum of -ln p(token | previous tokens) with the engine's forward pass.
func TestEvaluateMatchesEngine(t *testing.T) {
	m, tok := trainedTiny(t)
	text := "func helper(x int) int {"
	ids, _ := tok.Encode(text, true, false)
	if len(ids) > m.Config.SeqLen {
		t.Fatalf("test text is %d tokens, longer than the context", len(ids))
	}
	st := m.NewState()
	var want float64
	for pos := 0; pos+1 < len(ids); pos++ {
		logits, err := st.Forward(ids[pos], pos)
		if err != nil {
			t.Fatal(err)
		}
		want -= decoding.LogSoftmax(logits)[ids[pos+1]]
	}
	got, err := Evaluate(m, tok, text)
	if err != nil {
		t.Fatal(err)
	}
	if got.Tokens != len(ids)-1 || got.Bytes != len(text) {
		t.Errorf("scored %d tokens of %d bytes, want %d of %d", got.Tokens, got.Bytes, len(ids)-1, len(text))
	}
	if math.Abs(got.Nats-want) > 1e-3*want {
		t.Errorf("total %.5f nats, engine %.5f", got.Nats, want)
	}
	if bpb := got.BitsPerByte(); math.Abs(bpb-want/math.Ln2/float64(len(text))) > 1e-3 {
		t.Errorf("bits per byte %v", bpb)
	}

	// A text longer than the context: every token is scored once.
	long := strings.Repeat(sampleGo, 2)
	lids, _ := NewEncoder(tok).Encode(long)
	r, err := Evaluate(m, tok, long)
	if err != nil {
		t.Fatal(err)
	}
	if r.Tokens != len(lids) {
		t.Errorf("long text: scored %d tokens, want %d", r.Tokens, len(lids))
	}
	// The model has seen this text: it should do far better than chance.
	if r.NatsPerToken() > 0.5*math.Log(float64(tok.VocabSize())) {
		t.Errorf("%.3f nats per token on training text; chance is %.3f", r.NatsPerToken(), math.Log(float64(tok.VocabSize())))
	}

	if _, err := Evaluate(m, tok, ""); err == nil {
		t.Error("empty text accepted")
	}
}
