package cot

import (
	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/train"
)

// Preset is one training run of the task: the model, the trainer's
// settings and how many examples to generate.
type Preset struct {
	Train        train.Config // Model.VocabSize is set from the tokenizer
	Examples     int          // training examples
	ValExamples  int          // validation examples
	ExamplesSeed uint64
}

// Presets are the runs cmd/cot knows, by name, then by format.
var Presets = map[string]map[Format]Preset{
	"full": {
		Direct: fullPreset(),
		Steps:  fullPreset(),
	},
	"tiny": {
		Direct: tinyPreset(),
		Steps:  tinyPreset(),
	},
}

func fullPreset() Preset {
	return Preset{
		Train: train.Config{
			Model:     engine.Config{Dim: 64, HiddenDim: 128, NLayers: 3, NHeads: 4, NKVHeads: 4, SeqLen: 96, SharedClassifier: true},
			BatchSize: 16, Steps: 5000, LR: 3e-3, MinLR: 3e-4, WarmupSteps: 100,
			WeightDecay: 0.1, GradClip: 1, Seed: 1, EvalEvery: 100, EvalBatches: 8, CheckpointEvery: 200,
		},
		Examples: 400000, ValExamples: 2000, ExamplesSeed: 1,
	}
}

func tinyPreset() Preset {
	return Preset{
		Train: train.Config{
			Model:     engine.Config{Dim: 16, HiddenDim: 32, NLayers: 1, NHeads: 2, NKVHeads: 1, SeqLen: 96, SharedClassifier: true},
			BatchSize: 4, Steps: 6, LR: 1e-2, MinLR: 1e-3, WarmupSteps: 2,
			WeightDecay: 0.1, GradClip: 1, Seed: 1, EvalEvery: 3, EvalBatches: 1, CheckpointEvery: 2,
		},
		Examples: 500, ValExamples: 100, ExamplesSeed: 1,
	}
}
