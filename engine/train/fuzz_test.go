package train

import (
	"bytes"
	"testing"
)

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
