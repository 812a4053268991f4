package train_test

import (
	"context"
	"fmt"
	"math"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/train"
)

// A notebook trains a model with the OnStep hook to draw a live loss chart;
// here the hook just records the losses.
func ExampleTrain() {
	text := "func add(a, b int) int {\n\treturn a + b\n}\n"
	tok, err := train.TrainTokenizer([]string{text}, train.MinVocabSize+20)
	if err != nil {
		panic(err)
	}
	stream, err := train.NewEncoder(tok).EncodeDocuments([]string{text, text, text, text})
	if err != nil {
		panic(err)
	}
	cfg := train.Config{
		Model:     engine.Config{Dim: 16, HiddenDim: 32, NLayers: 1, NHeads: 2, NKVHeads: 1, VocabSize: tok.VocabSize(), SeqLen: 16, SharedClassifier: true},
		BatchSize: 4, Steps: 40, LR: 1e-2, MinLR: 1e-3, WarmupSteps: 4, GradClip: 1, Seed: 1, EvalEvery: 20, EvalBatches: 1,
	}
	var losses []float64
	st, err := train.Train(context.Background(), cfg, &train.Data{Train: stream, Val: stream}, train.Options{
		OnStep: func(p train.Progress) { losses = append(losses, p.Loss) },
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("steps:", len(losses))
	fmt.Println("loss at least halved:", losses[len(losses)-1] < losses[0]/2)
	fmt.Println("validation measured:", !math.IsNaN(st.ValLoss))
	// Output:
	// steps: 40
	// loss at least halved: true
	// validation measured: true
}
