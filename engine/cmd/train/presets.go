package main

import (
	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/train"
)

// preset is a vocabulary size and the two models' training runs. The
// vocabulary size of each model is set from the tokenizer.
type preset struct {
	vocab         int
	target, draft train.Config
}

var presets = map[string]preset{
	// full is the run behind the embedded default models.
	"full": {
		vocab: 2048,
		target: train.Config{
			Model:     engine.Config{Dim: 128, HiddenDim: 352, NLayers: 4, NHeads: 4, NKVHeads: 2, SeqLen: 256, SharedClassifier: true},
			BatchSize: 8, Steps: 1800, LR: 3e-3, MinLR: 3e-4, WarmupSteps: 60,
			WeightDecay: 0.1, GradClip: 1, Seed: 1, EvalEvery: 200, EvalBatches: 8, CheckpointEvery: 50,
		},
		draft: train.Config{
			Model:     engine.Config{Dim: 64, HiddenDim: 176, NLayers: 2, NHeads: 4, NKVHeads: 2, SeqLen: 256, SharedClassifier: true},
			BatchSize: 8, Steps: 1200, LR: 4e-3, MinLR: 4e-4, WarmupSteps: 40,
			WeightDecay: 0.1, GradClip: 1, Seed: 2, EvalEvery: 200, EvalBatches: 8, CheckpointEvery: 100,
		},
	},
	// tiny exercises every stage in seconds.
	"tiny": {
		vocab: 300,
		target: train.Config{
			Model:     engine.Config{Dim: 16, HiddenDim: 32, NLayers: 1, NHeads: 2, NKVHeads: 1, SeqLen: 16, SharedClassifier: true},
			BatchSize: 4, Steps: 6, LR: 1e-2, MinLR: 1e-3, WarmupSteps: 2,
			WeightDecay: 0.1, GradClip: 1, Seed: 1, EvalEvery: 3, EvalBatches: 1, CheckpointEvery: 2,
		},
		draft: train.Config{
			Model:     engine.Config{Dim: 8, HiddenDim: 16, NLayers: 1, NHeads: 2, NKVHeads: 1, SeqLen: 16, SharedClassifier: true},
			BatchSize: 4, Steps: 4, LR: 1e-2, MinLR: 1e-3, WarmupSteps: 1,
			WeightDecay: 0.1, GradClip: 1, Seed: 2, EvalEvery: 2, EvalBatches: 1, CheckpointEvery: 2,
		},
	},
}
