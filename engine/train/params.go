package train

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/memory"
)

// Params holds every trainable weight of a model in one flat slice, so that
// the optimizer, gradient clipping and checkpoints can treat them as one
// vector. The named fields are views into Data, in the engine's (llama2.c)
// layout: every matrix is row-major (out, in) and each tensor type holds all
// layers one after the other. The classifier is shared with the token
// embedding.
type Params struct {
	Config engine.Config
	Data   []float32
	tensors
}

// tensors are views of one flat buffer, one per weight tensor.
type tensors struct {
	Emb, RMSAtt, Wq, Wk, Wv, Wo, RMSFFN, W1, W2, W3, RMSFinal []float32
}

// CheckConfig reports why a model shape cannot be trained, or nil.
func CheckConfig(c engine.Config) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("model shape: %w", err)
	}
	if !c.SharedClassifier {
		return fmt.Errorf("model shape: the trainer only trains models whose classifier is shared with the embedding")
	}
	if c.VocabSize < MinVocabSize || c.VocabSize > maxVocabSize {
		return fmt.Errorf("model shape: vocab_size %d is outside %d..%d", c.VocabSize, MinVocabSize, maxVocabSize)
	}
	return nil
}

// numParams returns the number of trainable floats of a shape.
func numParams(c engine.Config) int {
	n := 0
	for _, s := range layoutOf(c) {
		n += s.n
	}
	return n
}

// layoutOf lists the tensors of shape c in the order of the flat buffer,
// with their sizes and whether weight decay applies to them (to matrices,
// not to the RMSNorm gains).
func layoutOf(c engine.Config) []segment {
	d, h, L, v, kv := c.Dim, c.HiddenDim, c.NLayers, c.VocabSize, c.KVDim()
	return []segment{
		{"token_embedding", v * d, true}, {"rms_att", L * d, false}, {"wq", L * d * d, true},
		{"wk", L * kv * d, true}, {"wv", L * kv * d, true}, {"wo", L * d * d, true},
		{"rms_ffn", L * d, false}, {"w1", L * h * d, true}, {"w2", L * d * h, true},
		{"w3", L * h * d, true}, {"rms_final", d, false},
	}
}

// segment is one tensor of the flat parameter buffer.
type segment struct {
	name  string
	n     int
	decay bool
}

// split cuts buf into the tensor views of shape c.
func split(c engine.Config, buf []float32) tensors {
	var v [11][]float32
	for i, s := range layoutOf(c) {
		v[i] = buf[:s.n:s.n]
		buf = buf[s.n:]
	}
	return tensors{Emb: v[0], RMSAtt: v[1], Wq: v[2], Wk: v[3], Wv: v[4], Wo: v[5],
		RMSFFN: v[6], W1: v[7], W2: v[8], W3: v[9], RMSFinal: v[10]}
}

// NewParams allocates zeroed parameters for a model shape.
func NewParams(c engine.Config) (*Params, error) {
	if err := CheckConfig(c); err != nil {
		return nil, err
	}
	if err := memory.Check(fmt.Sprintf("the %d parameters of %v", numParams(c), c), 4*int64(numParams(c))); err != nil {
		return nil, err
	}
	data := make([]float32, numParams(c))
	return &Params{Config: c, Data: data, tensors: split(c, data)}, nil
}

// Init sets the initial weights, deterministically from seed: RMSNorm gains
// are 1; every matrix is drawn from a normal distribution with standard
// deviation 0.02, and the two projections that write into the residual
// stream (wo and w2) are scaled down by 1/√(2·layers), as in GPT-2, so the
// stream does not grow with depth.
func (p *Params) Init(seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0x746f6b656e))
	normal := func(t []float32, std float64) {
		for i := range t {
			t[i] = float32(rng.NormFloat64() * std)
		}
	}
	const std = 0.02
	resid := std / math.Sqrt(2*float64(p.Config.NLayers))
	normal(p.Emb, std)
	normal(p.Wq, std)
	normal(p.Wk, std)
	normal(p.Wv, std)
	normal(p.Wo, resid)
	normal(p.W1, std)
	normal(p.W2, resid)
	normal(p.W3, std)
	for _, g := range [][]float32{p.RMSAtt, p.RMSFFN, p.RMSFinal} {
		for i := range g {
			g[i] = 1
		}
	}
}

// Model returns an engine model whose weights are views of p's parameters
// (no copy): training p further changes the model. It fails only when a
// parameter's size was changed from what NewParams made.
func (p *Params) Model() (*engine.Model, error) {
	return engine.NewModel(p.Config, p.weights())
}

// weights views p's parameters in llama2.c's layout.
func (p *Params) weights() *engine.Weights {
	return &engine.Weights{
		TokenEmbedding: p.Emb, RMSAtt: p.RMSAtt, Wq: p.Wq, Wk: p.Wk, Wv: p.Wv, Wo: p.Wo,
		RMSFFN: p.RMSFFN, W1: p.W1, W2: p.W2, W3: p.W3, RMSFinal: p.RMSFinal, Classifier: p.Emb,
	}
}

// ParamsFromModel copies an engine model's weights into trainable
// parameters.
func ParamsFromModel(m *engine.Model) (*Params, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	p, err := NewParams(m.Config)
	if err != nil {
		return nil, err
	}
	if err := m.CopyWeights(p.weights()); err != nil {
		return nil, err
	}
	return p, nil
}
