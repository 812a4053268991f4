package experiment

import (
	"sort"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
)

// ProfileDecode runs up to n decode steps of m (one token each, with
// State.Forward) with an engine.Profile attached and returns it: first the
// tokens of prompt, then greedy choices, until n steps or the end of the
// model's context.
func ProfileDecode(m *engine.Model, prompt []int, n int) *engine.Profile {
	prof := &engine.Profile{}
	st := m.NewState()
	st.Profile = prof
	var logits []float32
	var err error
	for pos := 0; pos < n && pos < m.Config.SeqLen; pos++ {
		id := 0
		if pos < len(prompt) {
			id = prompt[pos]
		} else {
			id = decoding.Argmax(logits)
		}
		if logits, err = st.Forward(id, pos); err != nil {
			panic(err)
		}
	}
	return prof
}

// PartShares returns the parts of the forward pass by name and each part's
// share of prof's total FLOPs, bytes moved and measured time.
func PartShares(prof *engine.Profile) (parts []string, flops, bytes, times []float64) {
	total := prof.Total()
	share := func(a, b int64) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	for p := range engine.NumParts {
		c := prof.Parts[p]
		parts = append(parts, p.String())
		flops = append(flops, share(c.FLOPs, total.FLOPs))
		bytes = append(bytes, share(c.Bytes, total.Bytes))
		times = append(times, share(int64(c.Time), int64(total.Time)))
	}
	return parts, flops, bytes, times
}

// VocabShare returns the vocabulary projection's share of the counted
// FLOPs of one decode step at position pos of a model of shape c.
func VocabShare(c engine.Config, pos int) float64 {
	return float64(c.StepCost(pos)[engine.PartVocab].FLOPs) / float64(DecodeStepFLOPs(c, pos))
}

// CountTokens encodes every text (without BOS) and returns the total bytes
// and tokens.
func CountTokens(tok *engine.Tokenizer, texts []string) (nBytes, nTokens int) {
	for _, t := range texts {
		ids, err := tok.Encode(t, false, false)
		if err != nil {
			panic(err)
		}
		nBytes += len(t)
		nTokens += len(ids)
	}
	return nBytes, nTokens
}

// SampledDistributions samples steps tokens after prompt (temperature 1,
// the given seed, the end-of-text tokens banned so the text runs on) and
// returns the model's next-token probabilities at every step, before the
// pick.
func SampledDistributions(m *engine.Model, tok *engine.Tokenizer, prompt string, steps int, seed uint64) [][]float64 {
	ids, err := tok.Encode(prompt, true, false)
	if err != nil {
		panic(err)
	}
	st := m.NewState()
	logits, err := st.Prefill(ids, 0)
	if err != nil {
		panic(err)
	}
	sampler, err := NoEnd(tok, decoding.Options{Temperature: 1, Seed: seed}).NewSampler(m.Config.VocabSize)
	if err != nil {
		panic(err)
	}
	var dists [][]float64
	for pos := len(ids); pos < len(ids)+steps && pos < m.Config.SeqLen; pos++ {
		dists = append(dists, decoding.Softmax(logits))
		next, err := sampler.Sample(logits)
		if err != nil {
			panic(err)
		}
		if logits, err = st.Forward(next, pos); err != nil {
			panic(err)
		}
	}
	return dists
}

// AverageTopMass returns, for each k of ks, the probability held by the k
// most likely tokens, averaged over dists.
func AverageTopMass(dists [][]float64, ks []int) []float64 {
	mass := make([]float64, len(ks))
	for _, p := range dists {
		sorted := append([]float64(nil), p...)
		sort.Sort(sort.Reverse(sort.Float64Slice(sorted)))
		for j, k := range ks {
			sum := 0.0
			for _, v := range sorted[:min(k, len(sorted))] {
				sum += v
			}
			mass[j] += sum / float64(len(dists))
		}
	}
	return mass
}

// AverageBelow returns how many tokens of a distribution of dists have a
// probability below x, on average.
func AverageBelow(dists [][]float64, x float64) float64 {
	n := 0
	for _, p := range dists {
		for _, v := range p {
			if v < x {
				n++
			}
		}
	}
	if len(dists) == 0 {
		return 0
	}
	return float64(n) / float64(len(dists))
}

// StoredStepBytes returns the bytes of weights each part of the forward
// pass reads at one decode step, in the tensor types m stores them in: one
// row of the embedding, the RMSNorm gains, the attention and MLP matrices
// of every layer, and the vocabulary projection's matrix. Config.StepCost
// counts every weight as a 4-byte float32; a quantized GGUF model moves
// fewer bytes, and since a decode step mostly waits for its weights to
// arrive from memory, these bytes are what its time follows. A llama2.c
// model's weights are float32, 4 bytes each.
func StoredStepBytes(m *engine.Model) [engine.NumParts]int64 {
	var out [engine.NumParts]int64
	c := m.Config
	d, L := int64(c.Dim), int64(c.NLayers)
	out[engine.PartNorm] = 4 * (2*L + 1) * d
	mats := m.Matrices
	if mats == nil {
		kv, h := int64(c.KVDim()), int64(c.HiddenDim)
		out[engine.PartEmbedding] = 4 * d
		out[engine.PartAttention] = 4 * L * (2*d*d + 2*kv*d)
		out[engine.PartMLP] = 4 * L * 3 * h * d
		out[engine.PartVocab] = 4 * int64(c.VocabSize) * d
		return out
	}
	out[engine.PartEmbedding] = mats.Embedding.Bytes() / int64(mats.Embedding.Rows())
	for _, layer := range mats.Layers {
		for _, w := range []*engine.Matrix{layer.Wq, layer.Wk, layer.Wv, layer.Wo} {
			out[engine.PartAttention] += w.Bytes()
		}
		for _, w := range []*engine.Matrix{layer.W1, layer.W2, layer.W3} {
			out[engine.PartMLP] += w.Bytes()
		}
	}
	out[engine.PartVocab] = mats.Classifier.Bytes()
	return out
}
