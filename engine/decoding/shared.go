package decoding

import (
	"context"

	"github.com/tokenbytoken/course/engine"
)

// Shared decodes like the default decoder, with every sampling setting,
// constraint and stop, but has Seq run the model: Seq is one sequence of
// forward passes that other sequences share, such as a sequence of
// engine/schedule's Scheduler, which runs the steps of every generation a
// server is answering as one batched pass. The model of Generate, or the
// LM of Decode, gives the vocabulary and the context; Seq runs them.
type Shared struct {
	Seq Sequence
}

// Sequence runs the forward passes of one generation on its behalf.
type Sequence interface {
	// Logits returns the logits after seq: the scores of the token that
	// follows it. seq is the whole sequence so far, the prompt first;
	// each call is the previous one's seq with tokens added, and Logits
	// runs the tokens it has not run yet. The logits are the caller's to
	// keep until the next call. It stops with ctx's error when ctx is
	// done.
	Logits(ctx context.Context, seq []int) ([]float32, error)
}

func (s Shared) check(Options) error {
	if s.Seq == nil {
		return &SettingError{"Decoder.Seq", s.Seq, "Shared needs a Sequence to run the model"}
	}
	return nil
}

func (s Shared) generate(d *decoding, _ *engine.Model, opts Options, yield func(Step, error) bool) {
	s.run(d, opts, yield)
}

func (s Shared) decode(d *decoding, _ LM, opts Options, yield func(Step, error) bool) {
	s.run(d, opts, yield)
}

// run samples with opts, Seq giving the logits.
func (s Shared) run(d *decoding, opts Options, yield func(Step, error) bool) {
	d.room++ // the last token is never run
	d.sample(yield, opts.chooser(d.tok), func(seq []int) ([]float32, error) {
		return s.Seq.Logits(d.ctx, seq)
	})
}
