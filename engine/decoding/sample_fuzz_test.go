package decoding

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzSampler feeds the sampler any logits and any settings. Settings
// that Validate refuses, NewSampler refuses too, with the same error. On
// settings it accepts, the answer must be a token id that exists and that
// the stages allowed, or an error with NoToken — never a default id — and
// on logits of ordinary size always a token. SampleTrace must draw the
// same token and never record NaN.
func FuzzSampler(f *testing.F) {
	f.Add([]byte{0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64}, 1.0, 0, 1.0, 0.0, 1.0, 0.0, 0.0, 0, uint64(1), []byte{0, 1})
	f.Add([]byte{0, 0, 192, 127, 0, 0, 128, 63}, 0.8, 2, 0.9, 0.05, 1.3, 0.5, 0.5, 2, uint64(7), []byte{1, 1, 1})
	f.Add([]byte{0, 0, 128, 255, 0, 0, 128, 255}, 1.0, 0, 1.0, 0.0, 0.0, 0.0, 0.0, 0, uint64(3), []byte{})
	f.Add([]byte{255, 255, 127, 127, 0, 0, 128, 63}, 0.001, 1, 1.0, 0.0, 0.01, -100.0, 100.0, 1, uint64(9), []byte{0, 0})
	f.Add([]byte{}, 0.0, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, uint64(0), []byte{})
	f.Fuzz(func(t *testing.T, raw []byte, temp float64, topK int, topP, minP, rep, presence, frequency float64, ngram int, seed uint64, hist []byte) {
		logits := make([]float32, len(raw)/4)
		ordinary := true
		for i := range logits {
			logits[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			if v := float64(logits[i]); math.IsNaN(v) || math.Abs(v) > 1e4 {
				ordinary = false
			}
		}
		history := make([]int, len(hist))
		for i, b := range hist {
			history[i] = int(b) % max(len(logits), 1)
		}
		o := Options{Temperature: temp, TopK: topK % 1000, TopP: topP, MinP: minP, RepetitionPenalty: rep,
			PresencePenalty: presence, FrequencyPenalty: frequency, NoRepeatNGram: ngram % 8, Seed: seed}
		if len(logits) > 0 {
			o.LogitBias = map[int]float32{0: float32(math.Inf(-1))} // ban token 0
		}
		invalid := o.validateSampling(len(logits))
		s, err := o.NewSampler(len(logits))
		switch {
		case invalid != nil && (err == nil || err.Error() != invalid.Error()):
			t.Fatalf("settings %+v: Validate says %v, NewSampler %v", o, invalid, err)
		case invalid != nil:
			return
		case err != nil:
			t.Fatalf("settings %+v: Validate accepts them, NewSampler says %v", o, err)
		}
		id, err := s.Sample(logits, history...)
		if err != nil {
			if id != NoToken {
				t.Fatalf("error %q came with id %d, not NoToken", err, id)
			}
			if ordinary && len(logits) > 0 {
				t.Fatalf("valid settings %+v on ordinary logits %v: %v", o, logits, err)
			}
			return
		}
		if id < 0 || id >= len(logits) {
			t.Fatalf("Sample returned id %d for %d logits", id, len(logits))
		}
		if z := float64(logits[id]); math.IsNaN(z) || math.IsInf(z, 0) {
			t.Fatalf("Sample drew token %d whose logit is %v", id, z)
		}

		trace, stages, err := o.sampler().SampleTrace(logits, history)
		if err != nil || trace != id {
			t.Fatalf("SampleTrace drew %d (%v), Sample %d", trace, err, id)
		}
		for _, st := range stages {
			for _, p := range st.Probs {
				if math.IsNaN(p) || p < 0 || p > 1 {
					t.Fatalf("stage %q holds the probability %v", st.Name, p)
				}
			}
		}
		if last := stages[len(stages)-1]; last.Probs[id] == 0 && last.Name != "greedy" {
			t.Fatalf("drew token %d, which the last stage (%s) gave probability 0", id, last.Name)
		}
	})
}
