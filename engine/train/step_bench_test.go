package train

import "testing"

// BenchmarkTrainStep times one forward and backward pass of the full
// preset's target model on one batch, and reports training tokens/s:
//
//	go test ./engine/train -run '^$' -bench TrainStep -benchtime 5x
func BenchmarkTrainStep(b *testing.B) {
	c := Presets["full"].Target
	c.Model.VocabSize = Presets["full"].Vocab
	p, err := NewParams(c.Model)
	if err != nil {
		b.Fatal(err)
	}
	p.Init(1)
	grad, err := NewParams(c.Model)
	if err != nil {
		b.Fatal(err)
	}
	n := newNet(p, c.BatchSize, c.Model.SeqLen)
	N := c.BatchSize * c.Model.SeqLen
	tokens, targets := make([]int32, N), make([]int32, N)
	for i := range tokens {
		tokens[i] = int32(i*7919) % int32(c.Model.VocabSize)
		targets[i] = int32(i*104729+3) % int32(c.Model.VocabSize)
	}
	for b.Loop() {
		n.forward(tokens, targets)
		n.backward(grad)
	}
	b.ReportMetric(float64(N)*float64(b.N)/b.Elapsed().Seconds(), "tok/s")
}
