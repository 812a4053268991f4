package train

import "github.com/tokenbytoken/course/engine"

// Preset is a vocabulary size and the training runs of the two models that
// share it. The models' VocabSize is left 0: it is set from the tokenizer.
type Preset struct {
	Vocab         int
	Target, Draft Config
}

// Presets are the runs cmd/train knows by name.
//
// The full preset's numbers were chosen for two CPU cores and about an hour
// and a half. With the AVX2 product kernel the trainer runs the target at
// roughly 3,500 tokens per second, so the target sees about 21 million
// tokens (1.5 passes over the training stream) — some 12 tokens per
// parameter for its 1.8 million parameters. Its 512-token context (about
// 1,300 bytes of Go) lets it copy names and whole lines from earlier in a
// file, which is most of what makes source code predictable. With a
// 2048-token vocabulary the shared embedding/classifier is a fifth of the
// target's parameters.
var Presets = map[string]Preset{
	// full is the run behind the embedded default models.
	"full": {
		Vocab: 2048,
		Target: Config{
			Model:     engine.Config{Dim: 192, HiddenDim: 448, NLayers: 4, NHeads: 6, NKVHeads: 2, SeqLen: 512, SharedClassifier: true},
			BatchSize: 2, Steps: 25000, LR: 1.5e-3, MinLR: 1.5e-4, WarmupSteps: 400,
			WeightDecay: 0.1, GradClip: 1, Seed: 1, EvalEvery: 800, EvalBatches: 32, CheckpointEvery: 200,
		},
		Draft: Config{
			Model:     engine.Config{Dim: 64, HiddenDim: 176, NLayers: 2, NHeads: 4, NKVHeads: 2, SeqLen: 512, SharedClassifier: true},
			BatchSize: 8, Steps: 2000, LR: 4e-3, MinLR: 4e-4, WarmupSteps: 40,
			WeightDecay: 0.1, GradClip: 1, Seed: 2, EvalEvery: 200, EvalBatches: 8, CheckpointEvery: 100,
		},
	},
	// tiny exercises every stage in seconds.
	"tiny": {
		Vocab: 300,
		Target: Config{
			Model:     engine.Config{Dim: 16, HiddenDim: 32, NLayers: 1, NHeads: 2, NKVHeads: 1, SeqLen: 16, SharedClassifier: true},
			BatchSize: 4, Steps: 6, LR: 1e-2, MinLR: 1e-3, WarmupSteps: 2,
			WeightDecay: 0.1, GradClip: 1, Seed: 1, EvalEvery: 3, EvalBatches: 1, CheckpointEvery: 2,
		},
		Draft: Config{
			Model:     engine.Config{Dim: 8, HiddenDim: 16, NLayers: 1, NHeads: 2, NKVHeads: 1, SeqLen: 16, SharedClassifier: true},
			BatchSize: 4, Steps: 4, LR: 1e-2, MinLR: 1e-3, WarmupSteps: 1,
			WeightDecay: 0.1, GradClip: 1, Seed: 2, EvalEvery: 2, EvalBatches: 1, CheckpointEvery: 2,
		},
	},
}
