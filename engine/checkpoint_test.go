package engine

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var tinyConfig = Config{Dim: 8, HiddenDim: 12, NLayers: 2, NHeads: 2, NKVHeads: 1, VocabSize: 262, SeqLen: 16, SharedClassifier: true}

func encodeModel(t testing.TB, m *Model) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCheckpointRoundTrip(t *testing.T) {
	for _, shared := range []bool{true, false} {
		c := tinyConfig
		c.SharedClassifier = shared
		m := randomModel(c, 7)
		data := encodeModel(t, m)
		if want := headerSize + 4*weightLayout(c).total(); int64(len(data)) != want {
			t.Fatalf("shared=%v: wrote %d bytes, want %d", shared, len(data), want)
		}
		vocab := int32(binary.LittleEndian.Uint32(data[20:]))
		if shared != (vocab > 0) {
			t.Fatalf("shared=%v: header vocab_size = %d, want its sign to say whether the classifier is shared", shared, vocab)
		}
		back, err := ParseModel(data)
		if err != nil {
			t.Fatal(err)
		}
		if back.Config != c {
			t.Fatalf("config %v, want %v", back.Config, c)
		}
		orig, got := m.Weights().Tensors(c), back.Weights().Tensors(c)
		for i := range orig {
			if !equalFloats(orig[i].Data, got[i].Data) {
				t.Fatalf("shared=%v: tensor %s changed in the round trip", shared, orig[i].Name)
			}
		}
		if shared && &back.Weights().Classifier[0] != &back.Weights().TokenEmbedding[0] {
			t.Fatal("shared classifier should alias the token embedding")
		}
	}
}

func equalFloats(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The reference checkpoint survives a write and re-read unchanged, and the
// file we write is byte-identical apart from the unused legacy RoPE tables.
func TestReferenceCheckpointRewrite(t *testing.T) {
	mp, _ := referencePaths(t)
	orig, err := os.ReadFile(mp)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseModel(orig)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Config.String(); got != "dim=64 hidden=172 layers=5 heads=8 kv_heads=4 vocab=512 seq_len=512 classifier=shared" {
		t.Fatalf("config = %s", got)
	}
	out := encodeModel(t, m)
	if len(out) != len(orig) {
		t.Fatalf("rewrote %d bytes, original has %d", len(out), len(orig))
	}
	c := m.Config
	var ropeStart int64 = headerSize
	for _, tn := range weightLayout(c) {
		if tn.name == "rope_tables" {
			break
		}
		ropeStart += 4 * tn.n
	}
	ropeEnd := ropeStart + 4*ropeFloats(c)
	if !bytes.Equal(out[:ropeStart], orig[:ropeStart]) || !bytes.Equal(out[ropeEnd:], orig[ropeEnd:]) {
		t.Fatal("rewritten checkpoint differs from the original outside the legacy RoPE tables")
	}
}

func header(v ...int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

func TestReadModelRejectsBadFiles(t *testing.T) {
	good := encodeModel(t, randomModel(tinyConfig, 1))
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "shorter than the 28-byte header"},
		{"short header", good[:20], "shorter than the 28-byte header"},
		{"truncated weights", good[:len(good)-4], "needs exactly"},
		{"trailing bytes", append(append([]byte{}, good...), 0, 0, 0, 0), "needs exactly"},
		{"zero dim", header(0, 12, 2, 2, 1, 262, 16), "dim = 0"},
		{"huge dim", header(1<<30, 12, 2, 2, 1, 262, 16), "dim = 1073741824"},
		{"huge everything", header(65536, 262144, 1024, 1024, 1024, 2000000, 1000000), "needs exactly"},
		{"negative layers", header(8, 12, -3, 2, 1, 262, 16), "n_layers = -3"},
		{"heads do not divide dim", header(8, 12, 2, 3, 1, 262, 16), "n_heads = 3 does not divide dim = 8"},
		{"kv heads do not divide heads", header(8, 12, 2, 2, 3, 262, 16), "n_kv_heads = 3"},
		{"odd head size", header(6, 12, 2, 2, 1, 262, 16), "odd"},
		{"zero vocab", header(8, 12, 2, 2, 1, 0, 16), "vocab_size = 0"},
		{"zero seq_len", header(8, 12, 2, 2, 1, 262, 0), "seq_len = 0"},
		{"llama2.c version 1", header(0x616b3432, 1, 64, 12, 2, 2, 1, 262, 16), "export it with llama2.c's export.py --version 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseModel(tc.data)
			if err == nil {
				t.Fatalf("accepted a bad checkpoint; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestLoadModelNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broken.bin")
	good := encodeModel(t, randomModel(tinyConfig, 1))
	if err := os.WriteFile(path, good[:100], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadModel(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v should name the file %s", err, path)
	}
	if _, err := LoadModel(filepath.Join(t.TempDir(), "missing.bin")); err == nil || !strings.Contains(err.Error(), "missing.bin") {
		t.Fatalf("error %v should name the missing file", err)
	}
}

func TestSaveIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.bin")
	m := randomModel(tinyConfig, 3)
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	// A model that cannot be written must leave the saved file untouched
	// and no temporary file behind.
	bad := &Model{Config: tinyConfig, Matrices: &Matrices{}}
	if err := bad.Save(path); err == nil {
		t.Fatal("saving a model with missing tensors succeeded")
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("a failed save changed the existing file")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries after a failed save, want only the model", len(entries))
	}
	back, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if !equalFloats(back.Weights().Wq, m.Weights().Wq) {
		t.Fatal("saved weights differ")
	}
}

func FuzzReadModel(f *testing.F) {
	f.Add(encodeModel(f, randomModel(tinyConfig, 1)))
	c := tinyConfig
	c.SharedClassifier = false
	f.Add(encodeModel(f, randomModel(c, 2)))
	f.Add(header(8, 12, 2, 2, 1, 262, 16))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseModel(data)
		if err != nil {
			return
		}
		// Whatever parses must describe a valid shape and write back to a
		// file of the same length that parses to the same shape.
		if err := m.Config.Validate(); err != nil {
			t.Fatalf("parsed an invalid config: %v", err)
		}
		out := encodeModel(t, m)
		if len(out) != len(data) {
			t.Fatalf("re-encoded %d bytes from a %d-byte file", len(out), len(data))
		}
		back, err := ParseModel(out)
		if err != nil || back.Config != m.Config {
			t.Fatalf("re-encoded model does not parse back: %v", err)
		}
	})
}
