//go:build unix

package train

// Hostile inputs to the trainer: checkpoints and token caches whose headers
// lie about their size, corpora holding named pipes, models that are not
// numbers, interruptions in the middle of tokenizing. They run as subtests
// of TestUnderMemoryLimit, in a child process, whose data segment is capped, so
// a header that is obeyed instead of checked fails the test rather than
// the machine.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/limittest"
)

func TestMain(m *testing.M) { limittest.Main(m, nil) }

const hostileLimit = 768 << 20

// TestUnderMemoryLimit runs every hostile case, each a subtest, in a
// child process capped at hostileLimit.
func TestUnderMemoryLimit(t *testing.T) {
	limittest.Run(t, hostileLimit, []limittest.Case{
		{Name: "Checkpoints", Test: hostileCheckpoints},
		{Name: "TokenCaches", Test: hostileTokenCaches},
		{Name: "Files", Test: hostileFiles},
		{Name: "Evaluate", Test: hostileEvaluate},
		{Name: "Interrupt", Test: hostileInterrupt},
		{Name: "StaleTemporary", Test: hostileStaleTemporary},
	})
}

// emptyReader claims a size it does not have: a file whose header matches
// its length, but whose body would only be read after the allocation.
type emptyReader struct{ r *bytes.Reader }

func (e emptyReader) Read(p []byte) (int, error) { return e.r.Read(p) }

func hostileCheckpoints(t *testing.T) {
	good := smallCheckpoint(t)
	hugeCfg := tinyTrainConfig(1).withDefaults()
	hugeCfg.Model = hugeModel
	hugeParams := numParams(hugeModel)
	hugeHeader := checkpointHeader{Config: hugeCfg, NumParams: hugeParams}
	js, _ := json.Marshal(hugeHeader)
	hugeSize := int64(len(checkpointMagic)+4+len(js)) + 12*int64(hugeParams)
	tiny := tinyTrainConfig(1).withDefaults()
	for _, c := range []struct {
		name string
		data []byte
		size int64 // 0: len(data)
		want string
	}{
		{"a 789-byte file claiming 69 billion parameters", append(fileWith(checkpointMagic, hugeHeader, nil), make([]byte, 789)...)[:789], 0, "needs exactly"},
		{"a file whose size matches 69 billion parameters", fileWith(checkpointMagic, hugeHeader, nil), hugeSize, "827.8 GB, but only"},
		{"a header length of 2^31 in a 20-byte file", append([]byte(checkpointMagic), 0, 0, 0, 128, 1, 2, 3, 4, 5, 6, 7, 8), 0, "header length 2147483648 is more than the 8 bytes left"},
		{"bad magic", []byte("TBTCKPT9xxxxxxxx"), 0, "not a training checkpoint (bad magic)"},
		{"empty", nil, 0, "not a training checkpoint"},
		{"truncated after the magic", []byte(checkpointMagic + "\x05"), 0, "reading header"},
		{"a header that is not JSON", fileWith(checkpointMagic, "x", nil)[:len(checkpointMagic)+4], 0, "header"},
		{"parameters that do not match the shape", fileWith(checkpointMagic, checkpointHeader{Config: tiny, NumParams: 7}, nil), 0, "header says 7 parameters"},
		{"an invalid shape", fileWith(checkpointMagic, checkpointHeader{Config: Config{}, NumParams: 0}, nil), 0, "model shape: dim = 0"},
		{"a negative step", fileWith(checkpointMagic, checkpointHeader{Config: tiny, Step: -5, NumParams: numParams(tiny.Model)}, make([]byte, 12*numParams(tiny.Model))), 0, "step -5"},
		{"the small checkpoint cut short", good[:len(good)-3], 0, "needs exactly"},
		{"the small checkpoint with a byte too many", append(append([]byte(nil), good...), 0), 0, "needs exactly"},
	} {
		size := c.size
		if size == 0 {
			size = int64(len(c.data))
		}
		_, err := readState(emptyReader{bytes.NewReader(c.data)}, size)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	if _, err := readState(bytes.NewReader(good), int64(len(good))); err != nil {
		t.Errorf("the small checkpoint: %v", err)
	}
}

func hostileTokenCaches(t *testing.T) {
	good := smallTokenCache(t)
	hugeHeader := fileWith(dataMagic, dataHeader{TrainTokens: 1 << 40, VocabSize: 300}, nil)
	for _, c := range []struct {
		name string
		data []byte
		size int64
		want string
	}{
		{"a small file claiming 2^31 tokens", fileWith(dataMagic, dataHeader{TrainTokens: 1 << 31, VocabSize: 300}, make([]byte, 64)), 0, "needs exactly"},
		{"a file whose size matches 2^40 tokens", hugeHeader, int64(len(hugeHeader)) + 1<<41, "2.2 TB, but only"},
		{"negative tokens", fileWith(dataMagic, dataHeader{TrainTokens: -1, VocabSize: 300}, nil), 0, "none may be negative"},
		{"a vocabulary of 0", fileWith(dataMagic, dataHeader{VocabSize: 0}, nil), 0, "vocabulary of 0 tokens"},
		{"a token outside the vocabulary", fileWith(dataMagic, dataHeader{TrainTokens: 1, VocabSize: 300}, []byte{0x2C, 0x01}), 0, "token 300 at index 0 is outside the vocabulary of 300"},
		{"a header length of 2^32-1", append([]byte(dataMagic), 255, 255, 255, 255), 0, "header length 4294967295 is more than the 0 bytes left"},
		{"bad magic", []byte("TBTDATA0...."), 0, "not a token cache"},
		{"the small cache cut short", good[:len(good)-1], 0, "needs exactly"},
	} {
		size := c.size
		if size == 0 {
			size = int64(len(c.data))
		}
		_, err := readData(emptyReader{bytes.NewReader(c.data)}, size)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	if d, err := readData(bytes.NewReader(good), int64(len(good))); err != nil || len(d.Train) != 4 || len(d.Val) != 3 {
		t.Errorf("the small cache: %+v, %v", d, err)
	}
}

// hostileFiles: named pipes and devices are refused as checkpoints,
// token caches and corpus files, before anything blocks.
func hostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.ckpt")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	corpus := t.TempDir()
	os.WriteFile(filepath.Join(corpus, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644)
	syscall.Mkfifo(filepath.Join(corpus, "b.go"), 0o644)
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"LoadState(FIFO)", func() error { _, err := LoadState(fifo); return err }, "is a named pipe (FIFO)"},
		{"LoadData(FIFO)", func() error { _, err := LoadData(fifo); return err }, "is a named pipe (FIFO)"},
		{"LoadState(/dev/zero)", func() error { _, err := LoadState("/dev/zero"); return err }, "is a character device"},
		{"LoadData(directory)", func() error { _, err := LoadData(dir); return err }, "is a directory"},
		{"a corpus holding a FIFO named b.go", func() error { _, err := LoadGoSource(corpus, SourceOptions{}); return err }, "b.go is a named pipe (FIFO)"},
		{"a negative corpus limit", func() error { _, err := LoadGoSource(corpus, SourceOptions{Limit: -1}); return err }, "limit -1 bytes"},
	} {
		done := make(chan error, 1)
		go func() { done <- c.run() }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still blocked after 5 s", c.name)
		}
	}
}

// hostileEvaluate: a model that is not numbers, nil arguments, and a
// context of a million tokens on a short text.
func hostileEvaluate(t *testing.T) {
	m, tok := trainedTiny(t)
	w := *m.Weights()
	w.Wq = append([]float32(nil), w.Wq...)
	w.Wq[0] = float32(math.Inf(1))
	nan, err := engine.NewModel(m.Config, &w)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		m    *engine.Model
		tok  *engine.Tokenizer
		want string
	}{
		{"infinite weights", nan, tok, "loss on token"},
		{"nil model", nil, tok, "nil *Model"},
		{"nil tokenizer", m, nil, "no tokenizer"},
	} {
		_, err := Evaluate(c.m, c.tok, sampleGo)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	// A context of 2^20 tokens: a short text is scored in a window of its
	// own length; attention over the full context would be 2^40 floats.
	long := *m
	long.Config.SeqLen = 1 << 20
	if _, err := Evaluate(&long, tok, "func f() {}\n"); err != nil {
		t.Errorf("a short text on a model with a context of 2^20: %v", err)
	}
}

// hostileInterrupt: cancelling while tokenizing stops at once with
// ErrInterrupted, in both stages.
func hostileInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	texts := []string{sampleGo, sampleGo, sampleGo}
	if _, err := TrainTokenizerContext(ctx, texts, 300); !errors.Is(err, ErrInterrupted) {
		t.Errorf("training a tokenizer after Ctrl-C: %v, want ErrInterrupted", err)
	}
	tok, err := TrainTokenizer(texts, 300)
	if err != nil {
		t.Fatal(err)
	}
	c := &Corpus{Train: []Source{{"a.go", sampleGo}}, Val: []Source{{"b.go", sampleGo}}}
	start := time.Now()
	if _, err := TokenizeContext(ctx, c, tok); !errors.Is(err, ErrInterrupted) {
		t.Errorf("tokenizing after Ctrl-C: %v, want ErrInterrupted", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("tokenizing after Ctrl-C took %v", d)
	}
}

// hostileStaleTemporary: a checkpoint save killed half-way leaves a
// temporary file; the next run removes it.
func hostileStaleTemporary(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "target.ckpt")
	stale := filepath.Join(dir, ".target.ckpt.tmp-999999999-1")
	os.WriteFile(stale, make([]byte, 1<<20), 0o600)
	cfg := tinyTrainConfig(4)
	if _, err := Train(context.Background(), cfg, patternData(cfg.Model.VocabSize), Options{Checkpoint: ckpt}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the killed save's temporary is still there: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only target.ckpt", names)
	}
}
