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
// The full preset's numbers were chosen for a run of a few hours on two
// CPU cores. The target sees 25.6 million tokens (1.8 passes over the
// training stream), some 14 tokens per parameter for its 1.8 million
// parameters. With a 2048-token vocabulary the shared
// embedding/classifier is a fifth of them.
//
// The target trains on small batches, 2 windows of 512 tokens, for the
// sake of copying. Code repeats itself, and a model predicts a repeat well
// only once it has induction heads: attention heads that find where the
// current text occurred before and read what came next. Such heads appear
// suddenly, after a number of training tokens that grows with the square
// root of the tokens per batch (Aoyama, Wilcox and Schneider, "Predicting
// the Formation of Induction Heads", 2025, put it near 10^5.7·√(batch ×
// context) tokens). With 8 windows per step the target never got there
// within its run; with 2 the validation loss falls steeply part-way
// through, and the model pays far less for a second copy of a text
// (eval -repeat). The draft, an eighth of the target's size, trains on 6
// million tokens in the same small batches: too few to learn copying.
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
			BatchSize: 2, Steps: 6000, LR: 2e-3, MinLR: 2e-4, WarmupSteps: 160,
			WeightDecay: 0.1, GradClip: 1, Seed: 2, EvalEvery: 800, EvalBatches: 32, CheckpointEvery: 400,
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
