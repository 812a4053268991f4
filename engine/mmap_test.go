package engine

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLoadModelMappedMatchesRead loads checkpoints through LoadModel
// (mapped on Linux) and through ReadModel (read and copied): the weights
// must be the same numbers, a write into the loaded weights must not reach
// the file, and every bad file must be refused with the same message.
func TestLoadModelMappedMatchesRead(t *testing.T) {
	dir := t.TempDir()
	good := encodeModel(t, randomModel(tinyConfig, 1))
	separate := tinyConfig
	separate.SharedClassifier = false
	files := map[string][]byte{"shared.bin": good, "separate.bin": encodeModel(t, randomModel(separate, 2))}
	if mp, _ := referencePaths(t); mp != "" {
		data, err := os.ReadFile(mp)
		if err != nil {
			t.Fatal(err)
		}
		files["stories260K.bin"] = data
	}
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		mapped, err := LoadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		read, err := ParseModel(data)
		if err != nil {
			t.Fatal(err)
		}
		if mapped.Config != read.Config {
			t.Fatalf("%s: shape %v mapped, %v read", name, mapped.Config, read.Config)
		}
		mt, rt := mapped.Weights().Tensors(mapped.Config), read.Weights().Tensors(read.Config)
		for i := range mt {
			if !equalFloats(mt[i].Data, rt[i].Data) {
				t.Fatalf("%s: tensor %s differs between the mapped and the read model", name, mt[i].Name)
			}
		}
		if mapped.Config.SharedClassifier && &mapped.Weights().Classifier[0] != &mapped.Weights().TokenEmbedding[0] {
			t.Fatalf("%s: the shared classifier is not the token embedding", name)
		}
		mapped.Weights().Wq[0] = 12345 // the process's copy only
		if after, err := os.ReadFile(path); err != nil || !bytes.Equal(after, data) {
			t.Fatalf("%s: writing into the loaded weights changed the file (%v)", name, err)
		}
		if again, err := LoadModel(path); err != nil || again.Weights().Wq[0] == 12345 {
			t.Fatalf("%s: a second load sees the first one's write (%v)", name, err)
		}
	}

	nan := append([]byte(nil), good...)
	copy(nan[headerSize+40:], []byte{0, 0, 0xc0, 0x7f}) // token_embedding[10]: NaN
	bad := map[string][]byte{
		"empty": nil, "short header": good[:20], "truncated": good[:len(good)-4],
		"trailing":  append(append([]byte(nil), good...), 0, 0, 0, 0),
		"odd head":  header(6, 12, 2, 2, 1, 262, 16),
		"version 1": header(0x616b3432, 1, 64, 12, 2, 2, 1, 262, 16),
		"nan":       nan,
	}
	for name, data := range bad {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".bin")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, readErr := ParseModel(data)
		_, loadErr := LoadModel(path)
		if readErr == nil || loadErr == nil || loadErr.Error() != "model "+path+": "+readErr.Error() {
			t.Errorf("%s: LoadModel says %v; ReadModel says %v", name, loadErr, readErr)
		}
	}
	if !strings.Contains(func() string { _, err := ParseModel(nan); return err.Error() }(), "is NaN") {
		t.Errorf("the NaN weight is not reported as NaN")
	}
}

// TestLoadModelMaps checks that on Linux the weights are the mapped file,
// not a copy: loading a model allocates far less than its weights.
func TestLoadModelMaps(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("LoadModel maps files on Linux only; elsewhere it reads them")
	}
	c := Config{Dim: 128, HiddenDim: 256, NLayers: 4, NHeads: 4, NKVHeads: 4, VocabSize: 4096, SeqLen: 64, SharedClassifier: true}
	path := filepath.Join(t.TempDir(), "m.bin")
	if err := randomModel(c, 3).Save(path); err != nil {
		t.Fatal(err)
	}
	weights := uint64(4 * c.NumParams())
	var m *Model
	var err error
	allocated := AllocatedBytes(func() { m, err = LoadModel(path) })
	if err != nil {
		t.Fatal(err)
	}
	if allocated > weights/10 {
		t.Errorf("loading %d bytes of weights allocated %d bytes: the file was copied, not mapped", weights, allocated)
	}
	if math.IsNaN(float64(m.Weights().W2[len(m.Weights().W2)-1])) {
		t.Fatal("unreachable: weights were checked")
	}
}
