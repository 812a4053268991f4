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
//
// "full" trains the embedded models. Both formats get the same run, so the
// comparison is fair in compute: the same shape, the same problems (sizes
// drawn as Examples says), the same 5,000 steps of 16 windows of 96 tokens
// (7.7 million tokens). A direct example is a third as long as one with
// steps, so the direct model sees three times as many problems. The shape
// was found by trying: with two layers instead of three, the steps model
// learned the arithmetic of a step but not which digits of the prompt to
// copy after the second step, and neither model got past two digits. The
// shape is small enough (140,864 parameters, 570 KB) to embed.
//
// "tiny" runs everything in a second, for the tests.
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
