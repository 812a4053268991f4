package cot

import (
	"fmt"
	"math/rand/v2"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/train"
)

// Examples returns count training texts in format f: problems of 1 to
// MaxDigits digits, the same for the same seed. A size of d digits is drawn
// with probability proportional to d (1/15, 2/15, … 5/15 for five sizes):
// a long problem has more steps to learn from, and its late steps, where
// the digit to copy from the prompt depends on both the step's number and
// the problem's length, are the ones a small model learns last. With every
// size equally likely, the steps model of the same run got most
// three-digit sums right but few four-digit ones.
func Examples(f Format, count int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 0x636f74))
	out := make([]string, count)
	for i := range out {
		digits := 1
		for x := r.IntN(MaxDigits * (MaxDigits + 1) / 2); x >= digits; digits++ {
			x -= digits
		}
		p := Problems(digits, 1, r.Uint64())[0]
		out[i] = p.Text(f)
	}
	return out
}

// Data builds the token streams the trainer reads: trainCount examples to
// train on and valCount others (from another seed) to measure the
// validation loss, each as <s>, its characters, </s>.
func Data(tok *engine.Tokenizer, f Format, trainCount, valCount int, seed uint64) (*train.Data, error) {
	enc := train.NewEncoder(tok)
	stream := func(texts []string) ([]uint16, int64, error) {
		ids, err := enc.EncodeDocuments(texts)
		var n int64
		for _, t := range texts {
			n += int64(len(t))
		}
		return ids, n, err
	}
	tr, tb, err := stream(Examples(f, trainCount, seed))
	if err != nil {
		return nil, fmt.Errorf("encoding the %s training examples: %w", f, err)
	}
	val, vb, err := stream(Examples(f, valCount, seed+1))
	if err != nil {
		return nil, fmt.Errorf("encoding the %s validation examples: %w", f, err)
	}
	return &train.Data{Train: tr, Val: val, TrainBytes: tb, ValBytes: vb, VocabSize: tok.VocabSize()}, nil
}
