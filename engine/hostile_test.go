//go:build unix

package engine

// The tests in this file feed the engine what a hostile user would: headers
// that ask for absurd memory, settings that overflow float32, weights and
// logits that are not numbers, nil arguments, named pipes. Each class is a
// table; every case must end in an error that says what was wrong —
// never a crash, a hang, or a plausible-looking answer.
//
// They run as subtests of TestUnderMemoryLimit, in a child process, whose data
// segment is capped at hostileLimit: an input that makes the engine
// allocate without bound kills the child ("out of memory") and fails the
// test, instead of taking the machine's memory.

import (
	"bytes"
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tokenbytoken/course/engine/internal/limittest"
)

func TestMain(m *testing.M) { limittest.Main(m, nil) }

// hostileLimit is the memory the hostile tests may use: far below any of
// the allocations they provoke, far above what the engine needs to refuse
// them.
const hostileLimit = 768 << 20

// TestUnderMemoryLimit runs every hostile case, each a subtest, in a
// child process capped at hostileLimit.
func TestUnderMemoryLimit(t *testing.T) {
	limittest.Run(t, hostileLimit, []limittest.Case{
		{Name: "Memory", Test: hostileMemory},
		{Name: "Files", Test: hostileFiles},
		{Name: "Weights", Test: hostileWeights},
		{Name: "API", Test: hostileAPI},
		{Name: "CancelledPrefill", Test: hostileCancelledPrefill},
	})
}

// deepModel is a model whose file is small (12 MB) but whose header claims
// a context of 2^20 tokens over 256 layers: its full KV cache would be
// 2 × 256 × 2^20 × 32 × 4 bytes = 68.7 GB.
func deepModel(t *testing.T) (*Model, *Tokenizer) {
	t.Helper()
	c := Config{Dim: 32, HiddenDim: 2, NLayers: 256, NHeads: 16, NKVHeads: 16, VocabSize: 4, SeqLen: 1 << 20, SharedClassifier: true}
	m, err := ParseModel(encodeModel(t, randomModel(c, 3)))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := NewTokenizer([]string{"<unk>", "<s>", "</s>", " a"}, []float32{0, 0, 0, 0}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, tok
}

// hostileMemory: work that cannot fit in memory is refused up front,
// with the numbers; work that fits runs, in memory sized by the work.
func hostileMemory(t *testing.T) {
	m, tok := deepModel(t)
	huge := Config{Dim: 8192, HiddenDim: 32768, NLayers: 64, NHeads: 64, NKVHeads: 64, VocabSize: 32000, SeqLen: 4096, SharedClassifier: true}
	hugeHeader := func() []byte {
		var b bytes.Buffer
		for _, v := range []int32{8192, 32768, 64, 64, 64, 32000, 4096} {
			b.Write([]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)})
		}
		return b.Bytes()
	}()
	hugeSize := headerSize + 4*weightLayout(huge).total()

	// A pass on the deep model needs a few positions of cache, not the
	// 68.7 GB its header allows.
	st := m.NewState()
	if _, err := st.Forward(1, 0); err != nil {
		t.Fatal(err)
	}
	if got, most := st.Cache.Bytes(), KVCacheBytes(m.Config, 64); got > most {
		t.Errorf("after one position the cache holds %d bytes, more than 64 positions' %d", got, most)
	}

	for _, c := range []struct {
		name string
		run  func() error
		want []string
	}{
		{"Forward at position 2^20-1", func() error {
			_, err := m.NewState().Forward(1, 1<<20-1)
			return err
		}, []string{"KV cache for 1048576 positions", "68.7 GB"}},
		{"NewKVCache for the whole context", func() error {
			_, err := NewKVCache(m.Config)
			return err
		}, []string{"KV cache for 1048576 positions", "68.7 GB"}},
		{"NewWeights of 51 billion bytes", func() error {
			_, err := NewWeights(huge)
			return err
		}, []string{"the weights of a model of", "parameters", "GB, but only"}},
		{"ReadModel of a header that matches its claimed size", func() error {
			_, err := ReadModel(bytes.NewReader(hugeHeader), hugeSize)
			return err
		}, []string{"a model of", "dim=8192", "GB, but only"}},
		{"tokenizing 8 MB at once", func() error {
			_, err := tok.Encode(strings.Repeat("a", 8<<20), true, false)
			return err
		}, []string{"tokenizing a text of 8388608 bytes", "GB, but only"}},
	} {
		limittest.NoPanic(t, c.name, func() {
			err := c.run()
			limittest.WantErr(t, c.name, err, c.want...)
			var me *MemoryError
			if err != nil && !errors.As(err, &me) {
				t.Errorf("%s: %v is not a *MemoryError", c.name, err)
			}
		})
	}
}

// hostileFiles: a path that is not a regular file is refused before
// anything is read; a named pipe with no writer would block forever.
func hostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "model.bin")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, c := range []struct {
		name string
		load func() error
		want string
	}{
		{"LoadModel(FIFO)", func() error { _, err := LoadModel(fifo); return err }, "is a named pipe (FIFO)"},
		{"LoadTokenizer(FIFO)", func() error { _, err := LoadTokenizer(fifo, 0); return err }, "is a named pipe (FIFO)"},
		{"LoadModel(/dev/zero)", func() error { _, err := LoadModel("/dev/zero"); return err }, "is a character device"},
		{"LoadTokenizer(/dev/urandom)", func() error { _, err := LoadTokenizer("/dev/urandom", 0); return err }, "is a character device"},
		{"LoadModel(directory)", func() error { _, err := LoadModel(dir); return err }, "is a directory"},
	} {
		done := make(chan error, 1)
		go func() { done <- c.load() }()
		select {
		case err := <-done:
			limittest.WantErr(t, c.name, err, c.want)
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still blocked after 5 s", c.name)
		}
	}
}

// hostileWeights: NaN and infinite weights are refused at load with the
// tensor and index; in a model built in Go they are caught by the logits
// they spoil, with the position.
func hostileWeights(t *testing.T) {
	for _, c := range []struct {
		name   string
		tensor func(w *Weights) []float32
		value  float32
		want   string
	}{
		{"NaN in wq", func(w *Weights) []float32 { return w.Wq }, float32(math.NaN()), "weight wq[5] is NaN"},
		{"+Inf in w2", func(w *Weights) []float32 { return w.W2 }, float32(math.Inf(1)), "weight w2[5] is +Inf"},
		{"-Inf in the embedding", func(w *Weights) []float32 { return w.TokenEmbedding }, float32(math.Inf(-1)), "weight token_embedding[5] is -Inf"},
		{"NaN in rms_final", func(w *Weights) []float32 { return w.RMSFinal }, float32(math.NaN()), "weight rms_final[5] is NaN"},
	} {
		limittest.NoPanic(t, c.name, func() {
			m := randomModel(tinyConfig, 5)
			c.tensor(m.Weights())[5] = c.value
			_, err := ParseModel(encodeModel(t, m))
			limittest.WantErr(t, "ParseModel with "+c.name, err, c.want)

			m = randomModel(Config{Dim: 8, HiddenDim: 8, NLayers: 1, NHeads: 2, NKVHeads: 2, VocabSize: 16, SeqLen: 16, SharedClassifier: true}, 5)
			c.tensor(m.Weights())[5] = c.value
			_, err = m.NewState().Forward(1, 0)
			limittest.WantErr(t, "Forward with "+c.name, err, "logits after position", "are not numbers")
		})
	}
}

// hostileAPI: nil or mismatched arguments to the Go API give errors,
// not panics.
func hostileAPI(t *testing.T) {
	m := randomModel(Config{Dim: 16, HiddenDim: 16, NLayers: 1, NHeads: 2, NKVHeads: 2, VocabSize: 16, SeqLen: 32, SharedClassifier: true}, 4)
	// A model put together by hand whose first layer's wq has a row
	// too few.
	short := *m
	mats := *m.Matrices
	mats.Layers = slices.Clone(mats.Layers)
	c := m.Config
	wq, err := NewMatrix(c.Dim-1, c.Dim, make([]float32, (c.Dim-1)*c.Dim))
	if err != nil {
		t.Fatal(err)
	}
	mats.Layers[0].Wq = wq
	short.Matrices = &mats
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"NewKVCache(Config{})", func() error { _, err := NewKVCache(Config{}); return err }, "dim = 0 is out of range"},
		{"NewWeights(Config{})", func() error { _, err := NewWeights(Config{}); return err }, "dim = 0 is out of range"},
		{"State{}.Forward", func() error { _, err := (&State{}).Forward(0, 0); return err }, "state has no model"},
		{"Forward with short weights", func() error { _, err := short.NewState().Forward(1, 0); return err }, "matrix wq is"},
		{"Prefill(nil)", func() error { _, err := m.NewState().Prefill(nil, 0); return err }, "no tokens"},
		{"Prefill past the context", func() error { _, err := m.NewState().Prefill([]int{1, 1}, 31); return err }, "do not fit"},
		{"NewModelLM(nil).NextLogits", func() error { _, err := NewModelLM(nil, 1).NextLogits([]int{1}, 1); return err }, "ModelLM has no model"},
		{"NewNoCacheLM(nil).NextLogits", func() error { _, err := NewNoCacheLM(nil).NextLogits([]int{1}, 1); return err }, "NoCacheLM has no model"},
		{"nil Tokenizer's Encode", func() error { var t *Tokenizer; _, err := t.Encode("x", true, false); return err }, "nil *Tokenizer"},
	} {
		limittest.NoPanic(t, c.name, func() { limittest.WantErr(t, c.name, c.run(), c.want) })
	}
}

// hostileCancelledPrefill: a long prompt's single batched pass stops at
// the first check after cancellation — between two layers — instead of
// running every layer first.
func hostileCancelledPrefill(t *testing.T) {
	c := Config{Dim: 16, HiddenDim: 16, NLayers: 8, NHeads: 2, NKVHeads: 2, VocabSize: 8, SeqLen: 64, SharedClassifier: true}
	m := randomModel(c, 9)
	prompt := make([]int, 60)
	ctx := limittest.CountingContext(3)
	_, err := m.NewState().PrefillContext(ctx, prompt, 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled prefill returned %v, want context.Canceled", err)
	}
	if ctx.Calls != 3 {
		t.Errorf("the pass asked the context %d times; want it to stop at the 3rd check (of %d: five per layer)", ctx.Calls, 5*c.NLayers)
	}
}
