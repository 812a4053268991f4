package train

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tokenbytoken/course/engine"
)

// hugeModel is a valid shape of some 69 billion parameters.
var hugeModel = engine.Config{Dim: 8192, HiddenDim: 32768, NLayers: 64, NHeads: 64, NKVHeads: 64, VocabSize: 32000, SeqLen: 4096, SharedClassifier: true}

// fileWith builds a checkpoint or token cache: magic, header length, the
// JSON header, then body.
func fileWith(magic string, header any, body []byte) []byte {
	js, _ := json.Marshal(header)
	var b bytes.Buffer
	b.WriteString(magic)
	binary.Write(&b, binary.LittleEndian, uint32(len(js)))
	b.Write(js)
	b.Write(body)
	return b.Bytes()
}

// smallCheckpoint is a valid checkpoint of a tiny run, in memory.
func smallCheckpoint(t testing.TB) []byte {
	cfg := tinyTrainConfig(1).withDefaults()
	p, err := NewParams(cfg.Model)
	if err != nil {
		t.Fatal(err)
	}
	p.Init(1)
	st := &State{Config: cfg, Params: p, Opt: NewAdamW(cfg.Model, cfg.Beta1, cfg.Beta2, adamEps, cfg.WeightDecay), ValLoss: math.NaN()}
	path := filepath.Join(t.TempDir(), "small.ckpt")
	if err := st.Save(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// smallTokenCache is a valid token cache, in memory.
func smallTokenCache(t testing.TB) []byte {
	d := &Data{Train: []uint16{1, 5, 6, 2}, Val: []uint16{1, 7, 2}, TrainBytes: 2, ValBytes: 1, VocabSize: 300}
	path := filepath.Join(t.TempDir(), "tokens.bin")
	if err := d.Save(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzReadState reads arbitrary bytes as a checkpoint: an error or a state
// that matches its own header, never a panic, and never an allocation
// larger than the file (the fuzzer runs with no memory to spare for one).
func FuzzReadState(f *testing.F) {
	good := smallCheckpoint(f)
	f.Add(good)
	f.Add(good[:40])
	f.Add([]byte(checkpointMagic))
	f.Add(fileWith(checkpointMagic, checkpointHeader{Config: Config{Model: hugeModel}, NumParams: numParams(hugeModel)}, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := readState(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if 12*len(st.Params.Data) > len(data) {
			t.Fatalf("a %d-byte file gave %d parameters", len(data), len(st.Params.Data))
		}
		if len(st.Opt.M) != len(st.Params.Data) || len(st.Opt.V) != len(st.Params.Data) {
			t.Fatalf("moments of %d and %d for %d parameters", len(st.Opt.M), len(st.Opt.V), len(st.Params.Data))
		}
	})
}

// FuzzReadData reads arbitrary bytes as a token cache: an error, or streams
// that fit the file and the vocabulary.
func FuzzReadData(f *testing.F) {
	good := smallTokenCache(f)
	f.Add(good)
	f.Add(good[:20])
	f.Add(fileWith(dataMagic, dataHeader{TrainTokens: 1 << 31, VocabSize: 300}, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := readData(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if 2*(len(d.Train)+len(d.Val)) > len(data) {
			t.Fatalf("a %d-byte file gave %d tokens", len(data), len(d.Train)+len(d.Val))
		}
		for _, s := range [][]uint16{d.Train, d.Val} {
			for _, id := range s {
				if int(id) >= d.VocabSize {
					t.Fatalf("token %d outside the vocabulary of %d", id, d.VocabSize)
				}
			}
		}
	})
}
