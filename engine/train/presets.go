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
// The full preset's numbers were chosen for two shared CPU cores and about
// an hour and a half: the trainer runs the target at roughly 1,500 tokens
// per second, so the target sees about 6.6 million tokens, and a model of
// about a million parameters is about what that budget can train (some 6-7
// tokens per parameter). With a 2048-token vocabulary the shared
// embedding/classifier is a quarter of the target's parameters.
var Presets = map[string]Preset{
	// full is the run behind the embedded default models.
	"full": {
		Vocab: 2048,
		Target: Config{
			Model:     engine.Config{Dim: 128, HiddenDim: 352, NLayers: 4, NHeads: 4, NKVHeads: 2, SeqLen: 256, SharedClassifier: true},
			BatchSize: 8, Steps: 3200, LR: 3e-3, MinLR: 3e-4, WarmupSteps: 60,
			WeightDecay: 0.1, GradClip: 1, Seed: 1, EvalEvery: 200, EvalBatches: 8, CheckpointEvery: 50,
		},
		Draft: Config{
			Model:     engine.Config{Dim: 64, HiddenDim: 176, NLayers: 2, NHeads: 4, NKVHeads: 2, SeqLen: 256, SharedClassifier: true},
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
